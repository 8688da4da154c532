import type { AccountCreateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { printItem } from "../../runtime/output.js";
import { compact, toChoice, toInt } from "../../runtime/parse.js";

/** Options of `lp admin accounts create`. */
export interface CreateAccountOptions {
  body: AccountCreateInput;
  json: boolean;
}

/** Turns the parsed flags of `lp admin accounts create` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): CreateAccountOptions {
  const body = compact({
    account_id: flags.id,
    environment: toChoice(flags.environment, "--environment", ["production", "test"] as const),
    currency: flags.currency,
    page_quota: toInt(flags.pageQuota, "--page-quota", 0),
    product_quota: toInt(flags.productQuota, "--product-quota", 0),
    media_quota_bytes: toInt(flags.mediaQuotaBytes, "--media-quota-bytes", 0),
  });
  return { body, json: flags.json === true };
}

/** Runs `lp admin accounts create`. */
export async function run(opts: CreateAccountOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const account = await client.admin.createAccount(opts.body);
  printItem(ctx, account, [["account_id", (a) => a.account_id], ["environment", (a) => a.environment], ["currency", (a) => a.currency], ["page_quota", (a) => a.page_quota], ["product_quota", (a) => a.product_quota], ["media_quota_bytes", (a) => a.media_quota_bytes], ["created", (a) => a.created_at]], opts.json);
}
