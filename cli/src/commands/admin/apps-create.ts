import type { AppCreateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { info, printItem } from "../../runtime/output.js";
import { compact, toList } from "../../runtime/parse.js";

/** Options of `lp admin apps create`. */
export interface CreateAppOptions {
  body: AppCreateInput;
  json: boolean;
}

/** Turns the parsed flags of `lp admin apps create` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): CreateAppOptions {
  if (!flags.name) throw new UsageError("Missing --name.");
  return { body: compact({ name: flags.name, account_ids: toList(flags.accounts) }) as AppCreateInput, json: flags.json === true };
}

/** Runs `lp admin apps create`. */
export async function run(opts: CreateAppOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const app = await client.admin.createApp(opts.body);
  printItem(ctx, app, [["application_id", (a) => a.application_id], ["client_secret", (a) => a.client_secret], ["name", (a) => a.name], ["account_ids", (a) => a.account_ids]], opts.json);
  if (!opts.json) info(ctx, "Keep the client secret: it is shown only now.");
}
