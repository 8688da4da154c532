import type { endpointCreateSchema, endpointUpdateSchema } from "@lp/core";
import type { EventType, WebhookDelivery, WebhookEndpoint, WebhookEndpointCreated, WebhookEndpointRotated } from "@lp/contract";
import type { z } from "zod";
import type { ListQuery } from "./common.js";

/** Endpoints, deliveries and their parts as the API returns them (from @lp/contract). */
export type {
  WebhookCircuit,
  VerificationOutcome,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointRotated,
  WebhookVerifyResult,
  DeliveryAttempt,
  WebhookDelivery,
} from "@lp/contract";

/** Endpoint status (DESIGN §9). */
export type WebhookEndpointStatus = WebhookEndpoint["status"];

/** Either answer that carries a secret. */
export type WebhookEndpointWithSecret = WebhookEndpointCreated | WebhookEndpointRotated;

/** Event names that can be subscribed to. */
export type WebhookEventType = EventType;

/** Body of `webhooks.create`: `url` and `events` required; `environment` and `concurrency_limit` default. */
export type WebhookEndpointCreateInput = z.input<typeof endpointCreateSchema>;

/** Body of `webhooks.update`; `events` replaces the list, a new `url` needs a new verification. */
export type WebhookEndpointUpdateInput = z.input<typeof endpointUpdateSchema>;

/** Query of `webhooks.deliveries`. */
export interface DeliveryListQuery extends ListQuery {
  status?: WebhookDelivery["status"];
  event_type?: string;
}
