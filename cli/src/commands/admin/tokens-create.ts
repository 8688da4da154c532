import type { TokenCreateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { parseDuration } from "../../runtime/durations.js";
import { info, printItem } from "../../runtime/output.js";
import { compact, toList } from "../../runtime/parse.js";

/** Options of `lp admin tokens create`. */
export interface CreateTokenOptions {
  body: TokenCreateInput;
  json: boolean;
}

/** Turns the parsed flags of `lp admin tokens create` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): CreateTokenOptions {
  // Days are common for tokens: `30d` is read as 30 × 24h.
  const expires = flags.expiresIn === undefined ? undefined : /^\d+d$/.test(flags.expiresIn) ? Number(flags.expiresIn.slice(0, -1)) * 86_400_000 : parseDuration(flags.expiresIn, "--expires-in");
  const body = compact({
    account_id: args[0],
    scopes: toList(flags.scopes) as TokenCreateInput["scopes"],
    expires_in: expires === undefined ? undefined : Math.max(1, Math.round(expires / 1000)),
  }) as TokenCreateInput;
  return { body, json: flags.json === true };
}

/** Runs `lp admin tokens create`. */
export async function run(opts: CreateTokenOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const token = await client.admin.createToken(opts.body);
  printItem(ctx, token, [["token", (t) => t.token], ["account_id", (t) => t.account_id], ["scopes", (t) => t.scopes], ["expires_at", (t) => t.expires_at]], opts.json);
  if (!opts.json) info(ctx, "Keep the token: it is shown only now.");
}
