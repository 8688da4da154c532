import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { info, printItem } from "../../runtime/output.js";
import { deliveryFields } from "./views.js";

/** Options of `lp webhooks retry`. */
export interface RetryOptions {
  id: string;
  deliveryId: string;
  json: boolean;
}

/** Turns the parsed flags of `lp webhooks retry` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): RetryOptions {
  return { id: args[0], deliveryId: args[1], json: flags.json === true };
}

/** Prints the delivery, now pending; the manual attempt happens in the background. */
export async function run(opts: RetryOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printItem(ctx, await client.webhooks.retry(opts.id, opts.deliveryId), deliveryFields, opts.json);
  if (!opts.json) info(ctx, `Delivery ${opts.deliveryId} is pending a manual attempt.`);
}
