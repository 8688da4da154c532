import type { Context } from "../../runtime/context.js";
import { runOnEndpoint, toEndpointIdOptions, type EndpointIdOptions } from "./simple.js";
import { endpointFields } from "./views.js";

/** Turns the parsed flags of `lp webhooks get` into its options. */
export const toOptions = toEndpointIdOptions;

/** Runs `lp webhooks get`. */
export async function run(opts: EndpointIdOptions, ctx: Context): Promise<void> {
  await runOnEndpoint(ctx, opts, (c) => c.webhooks.get(opts.id), endpointFields);
}
