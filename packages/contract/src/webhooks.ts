import { z } from "zod";
import { dataOf, listOf, timestampSchema } from "./common.js";
import { ALL_EVENT_TYPES, DELIVERY_STATUSES, EVENT_TYPES } from "./events.js";

/** The endpoint's circuit breaker. */
export const circuitSchema = z.object({
  state: z.enum(["closed", "open", "half_open"]),
  consecutive_failures: z.number().int(),
  reopen_count: z.number().int().describe("Re-opens in a row; ten disable the endpoint"),
  opens_until: timestampSchema.nullable().describe("When the next probe may go out"),
});

/** The outcome of one verification challenge, as verify and create answer it. */
export const verificationOutcomeSchema = z.object({
  outcome: z.enum(["succeeded", "failed"]),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().optional().describe("Why it failed; absent on success"),
});

/** The last verification as the endpoint keeps it. */
export const lastVerificationSchema = verificationOutcomeSchema.extend({ error: z.string().nullable(), at: timestampSchema });

/** A webhook endpoint of the calling application: never its secrets. */
export const endpointSchema = z.object({
  id: z.string().regex(/^we_[0-9a-f]+$/),
  url: z.url(),
  events: z.array(z.enum(EVENT_TYPES)),
  environment: z.enum(["production", "test"]),
  concurrency_limit: z.number().int().min(1).max(50),
  status: z.enum(["pending_verification", "active", "paused", "disabled"]),
  disabled_reason: z.enum(["manual", "gone", "circuit_breaker"]).nullable(),
  circuit: circuitSchema,
  last_verification: lastVerificationSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

const secret = z.string().regex(/^whsec_/).describe("Signing secret; shown only in this response");

/** What create answers: the endpoint, its secret (once) and the first verification's outcome. */
export const endpointCreatedSchema = endpointSchema.extend({ secret, verification: verificationOutcomeSchema });
/** What rotate-secret answers: the new secret (once) and when the previous one stops signing. */
export const endpointRotatedSchema = endpointSchema.extend({ secret, previous_secret_expires_at: timestampSchema });
/** What verify answers: the challenge's outcome and the endpoint. */
export const verifyResultSchema = verificationOutcomeSchema.extend({ endpoint: endpointSchema });

/** One attempt of a delivery; `response_body` is kept for non-2xx attempts only, at most 4 KiB. */
export const attemptSchema = z.object({
  number: z.number().int().min(1),
  trigger: z.enum(["scheduled", "manual", "test"]),
  started_at: timestampSchema,
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  outcome: z.enum(["succeeded", "failed"]),
  error: z.string().nullable(),
  response_body: z.string().nullable().describe("Only for non-2xx answers, at most 4 KiB"),
  truncated: z.boolean(),
});

/** The body of every delivery: the event envelope, with `data` typed per event type. */
export function eventEnvelope<T extends z.ZodType, D extends z.ZodType>(type: T, data: D) {
  return z.object({
    id: z.string().regex(/^evt_[0-9a-f]+$/),
    type,
    timestamp: timestampSchema,
    account_id: z.string().nullable().describe("The account the event happened on; null for webhook.test"),
    environment: z.enum(["production", "test"]),
    data,
  });
}

/** The event a delivery carries, any type. */
export const eventSchema = eventEnvelope(z.enum(ALL_EVENT_TYPES), z.unknown());

/** A delivery of an event to an endpoint (`dlv_...`, also the `webhook-id` of each attempt). */
export const deliverySchema = z.object({
  id: z.string().regex(/^dlv_[0-9a-f]+$/).describe("Also the webhook-id header of every attempt"),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.enum(ALL_EVENT_TYPES),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.array(attemptSchema),
  next_attempt_at: timestampSchema.nullable(),
  skipped_reason: z.string().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  payload: eventSchema.describe("The exact body sent; the schema of data per type is in components (x-webhook-events)"),
});

export const endpointResponse = dataOf(endpointSchema);
export const endpointListResponse = listOf(endpointSchema);
export const endpointCreatedResponse = dataOf(endpointCreatedSchema);
export const endpointRotatedResponse = dataOf(endpointRotatedSchema);
export const verifyResponse = dataOf(verifyResultSchema);
export const deliveryResponse = dataOf(deliverySchema);
export const deliveryListResponse = listOf(deliverySchema);

export type WebhookCircuit = z.infer<typeof circuitSchema>;
export type VerificationOutcome = z.infer<typeof verificationOutcomeSchema>;
export type WebhookEndpoint = z.infer<typeof endpointSchema>;
export type WebhookEndpointCreated = z.infer<typeof endpointCreatedSchema>;
export type WebhookEndpointRotated = z.infer<typeof endpointRotatedSchema>;
export type WebhookVerifyResult = z.infer<typeof verifyResultSchema>;
export type DeliveryAttempt = z.infer<typeof attemptSchema>;
export type WebhookEvent = z.infer<typeof eventSchema>;
export type WebhookDelivery = z.infer<typeof deliverySchema>;
