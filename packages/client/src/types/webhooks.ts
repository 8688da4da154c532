import type { AttemptRecord, endpointCreateSchema, endpointUpdateSchema, EventType } from "@lp/core";
import type { z } from "zod";
import type { ListQuery, Timestamp } from "./common.js";

/** Endpoint status (DESIGN §9). */
export type WebhookEndpointStatus = "pending_verification" | "active" | "paused" | "disabled";

/** The outcome of one verification challenge. */
export interface VerificationOutcome {
  outcome: "succeeded" | "failed";
  status_code: number | null;
  latency_ms: number;
  /** Why it failed; absent (or null) on success. */
  error?: string | null;
}

/** The endpoint's circuit breaker. */
export interface WebhookCircuit {
  state: "closed" | "open" | "half_open";
  consecutive_failures: number;
  reopen_count: number;
  opens_until: Timestamp | null;
}

/** A webhook endpoint of the calling application. */
export interface WebhookEndpoint {
  /** Opaque id, `we_...`. */
  id: string;
  url: string;
  events: string[];
  environment: "production" | "test";
  concurrency_limit: number;
  status: WebhookEndpointStatus;
  disabled_reason: "manual" | "gone" | "circuit_breaker" | null;
  circuit: WebhookCircuit;
  last_verification: (VerificationOutcome & { at: Timestamp }) | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** What create answers: the endpoint, its secret (once) and the first verification's outcome. */
export interface WebhookEndpointCreated extends WebhookEndpoint {
  /** `whsec_...`: keep it, it is never shown again. */
  secret: string;
  verification: VerificationOutcome;
}

/** What rotate-secret answers: the new secret (once) and when the previous one stops signing. */
export interface WebhookEndpointRotated extends WebhookEndpoint {
  secret: string;
  previous_secret_expires_at: Timestamp;
}

/** Either answer that carries a secret. */
export type WebhookEndpointWithSecret = WebhookEndpointCreated | WebhookEndpointRotated;

/** Event names that can be subscribed to. */
export type WebhookEventType = EventType;

/** Body of `webhooks.create`: `url` and `events` required; `environment` and `concurrency_limit` default. */
export type WebhookEndpointCreateInput = z.input<typeof endpointCreateSchema>;

/** Body of `webhooks.update`; `events` replaces the list, a new `url` needs a new verification. */
export type WebhookEndpointUpdateInput = z.input<typeof endpointUpdateSchema>;

/** What `webhooks.verify` answers: the challenge's outcome and the endpoint. */
export interface WebhookVerifyResult extends VerificationOutcome {
  endpoint: WebhookEndpoint;
}

/** One attempt of a delivery; `response_body` is kept for non-2xx attempts only, at most 4 KiB. */
export type DeliveryAttempt = AttemptRecord;

/** A delivery of an event to an endpoint (`dlv_...`, also the `webhook-id` of each attempt). */
export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: "pending" | "succeeded" | "failed" | "skipped";
  attempts: DeliveryAttempt[];
  next_attempt_at: Timestamp | null;
  skipped_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The exact body sent: `{ id, type, timestamp, account_id, environment, data }`. */
  payload: { id: string; type: string; timestamp: Timestamp; account_id: string | null; environment: string; data: unknown };
}

/** Query of `webhooks.deliveries`. */
export interface DeliveryListQuery extends ListQuery {
  status?: WebhookDelivery["status"];
  event_type?: string;
}
