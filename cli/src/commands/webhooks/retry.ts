import type { Client, WebhookDelivery } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { info, printItem } from "../../runtime/output.js";
import { deliveryFields } from "./views.js";

/** Options of `lp webhooks retry`. */
export interface RetryOptions {
  /** The endpoint, when given; otherwise the application's endpoints are tried in turn. */
  endpointId?: string;
  deliveryId: string;
  json: boolean;
}

/**
 * Turns the parsed flags of `lp webhooks retry` into its options; usage errors only, no I/O. One
 * argument is the delivery id alone: the `webhook-id` that `lp listen` prints.
 */
export function toOptions({ args, flags }: CommandInput): RetryOptions {
  const [first, second] = args;
  const endpointId = second === undefined ? undefined : first;
  const deliveryId = second ?? first;
  if (/^we_/.test(deliveryId)) throw new UsageError(`'${deliveryId}' is an endpoint id; add the delivery id (dlv_..., the webhook-id lp listen prints).`);
  if (/^evt_/.test(deliveryId)) throw new UsageError(`'${deliveryId}' is an event id; retry takes the delivery id (dlv_..., the webhook-id lp listen prints).`);
  return { endpointId, deliveryId, json: flags.json === true };
}

const isNotFound = (error: unknown) => (error as { name?: string; status?: number }).name === "ApiError" && (error as { status?: number }).status === 404;

/** Asks each endpoint of the application in turn: a delivery belongs to exactly one. */
async function retryAnywhere(client: Client, deliveryId: string): Promise<WebhookDelivery> {
  const { items: endpoints } = await client.collect((q) => client.webhooks.list(q), {}, 1000);
  for (const endpoint of endpoints) {
    try {
      return await client.webhooks.retry(endpoint.id, deliveryId);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  throw new CliError(EXIT.error, `No endpoint of this application has a delivery ${deliveryId} (it goes with its endpoint when that is deleted).`, { code: "not_found" });
}

/** Prints the delivery, now pending; the manual attempt happens in the background. */
export async function run(opts: RetryOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const delivery = opts.endpointId ? await client.webhooks.retry(opts.endpointId, opts.deliveryId) : await retryAnywhere(client, opts.deliveryId);
  printItem(ctx, delivery, deliveryFields, opts.json);
  if (!opts.json) info(ctx, `Delivery ${opts.deliveryId} is pending a manual attempt.`);
}
