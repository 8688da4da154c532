import type { Context } from "../../runtime/context.js";
import { info } from "../../runtime/output.js";
import { runOnEndpoint, toEndpointIdOptions, type EndpointIdOptions } from "./simple.js";
import { endpointWithSecretFields } from "./views.js";

/** Turns the parsed flags of `lp webhooks rotate-secret` into its options. */
export const toOptions = toEndpointIdOptions;

/** Runs `lp webhooks rotate-secret`. */
export async function run(opts: EndpointIdOptions, ctx: Context): Promise<void> {
  await runOnEndpoint(ctx, opts, (c) => c.webhooks.rotateSecret(opts.id), endpointWithSecretFields);
  if (!opts.json) info(ctx, "The new secret is shown only now; the previous one stays valid for 24 hours.");
}
