import type { Context } from "../../runtime/context.js";
import { info } from "../../runtime/output.js";
import { runOnEndpoint, toEndpointIdOptions, type EndpointIdOptions } from "./simple.js";
import { deliveryFields } from "./views.js";

/** Turns the parsed flags of `lp webhooks test` into its options. */
export const toOptions = toEndpointIdOptions;

/** Prints the scheduled delivery; the attempt happens in the background. */
export async function run(opts: EndpointIdOptions, ctx: Context): Promise<void> {
  const delivery = await runOnEndpoint(ctx, opts, (c) => c.webhooks.test(opts.id), deliveryFields);
  if (!opts.json) info(ctx, `Scheduled; follow it with 'lp webhooks deliveries ${opts.id}' (${delivery.id}).`);
}
