import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { printItem } from "../../runtime/output.js";
import { pageFields } from "./views.js";

/** Options of `lp pages get`. */
export interface GetPageOptions {
  id: string;
  json: boolean;
}

/** Turns the parsed flags of `lp pages get` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): GetPageOptions {
  return { id: args[0], json: flags.json === true };
}

/** Runs `lp pages get`. */
export async function run(opts: GetPageOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printItem(ctx, await client.pages.get(opts.id), pageFields, opts.json);
}
