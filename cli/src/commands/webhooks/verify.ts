import type { WebhookVerifyResult } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import { CliError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { runOnEndpoint, toEndpointIdOptions, type EndpointIdOptions } from "./simple.js";

/** Turns the parsed flags of `lp webhooks verify` into its options. */
export const toOptions = toEndpointIdOptions;

const fields: Array<[string, (r: WebhookVerifyResult) => unknown]> = [
  ["outcome", (r) => r.outcome],
  ["status_code", (r) => r.status_code],
  ["latency_ms", (r) => r.latency_ms],
  ["error", (r) => r.error],
  ["endpoint_status", (r) => r.endpoint?.status],
];

/** Prints the outcome; a challenge that failed exits 1 so scripts can tell. */
export async function run(opts: EndpointIdOptions, ctx: Context): Promise<void> {
  const result = await runOnEndpoint(ctx, opts, (c) => c.webhooks.verify(opts.id), fields);
  if (result.outcome !== "succeeded") {
    throw new CliError(EXIT.error, `Verification of ${opts.id} failed: ${result.error ?? `status ${result.status_code}`}.`, { code: "verification_failed" });
  }
}
