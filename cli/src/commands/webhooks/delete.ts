import type { Context } from "../../runtime/context.js";
import { info } from "../../runtime/output.js";
import { toEndpointIdOptions, type EndpointIdOptions } from "./simple.js";

/** Turns the parsed flags of `lp webhooks delete` into its options. */
export const toOptions = toEndpointIdOptions;

/** Runs `lp webhooks delete`. */
export async function run(opts: EndpointIdOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  await client.webhooks.delete(opts.id);
  if (opts.json) ctx.io.stdout.write(`${JSON.stringify({ id: opts.id, deleted: true })}\n`);
  else info(ctx, `Deleted webhook endpoint ${opts.id}.`);
}
