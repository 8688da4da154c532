import type { AnyEventType, DeliveryAttempt, EventType, WebhookCircuit, WebhookDelivery, WebhookEndpoint } from "@lp/contract";
import type { Environment } from "../accounts/schemas.js";
import { toDeliveryId } from "../ids.js";
import { isWaiting } from "./retry-policy.js";

/** Endpoint states (DESIGN §9). */
export type EndpointStatus = WebhookEndpoint["status"];
/** Why an endpoint is disabled. */
export type DisabledReason = NonNullable<WebhookEndpoint["disabled_reason"]>;
export type CircuitState = WebhookCircuit["state"];
export type DeliveryStatus = WebhookDelivery["status"];
export type AttemptTrigger = DeliveryAttempt["trigger"];

/** The circuit breaker of one endpoint (re-opens in a row without a success; ten disable the endpoint). */
export type Circuit = WebhookCircuit;

/** Outcome of one verification challenge, as the endpoint keeps it. */
export type VerificationResult = NonNullable<WebhookEndpoint["last_verification"]>;

/** A webhook endpoint as stored. Secrets are kept in clear: the service signs with them. */
export interface EndpointRecord {
  id: string;
  application_id: string;
  url: string;
  events: string[];
  environment: Environment;
  concurrency_limit: number;
  status: EndpointStatus;
  disabled_reason: DisabledReason | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  circuit: Circuit;
  last_verification: VerificationResult | null;
  created_at: string;
  updated_at: string;
}

/** An endpoint as an attempt of one of its deliveries uses it: everything but its subscriptions, which a delivery never needs. */
export type DeliveryTarget = Omit<EndpointRecord, "events">;

/** The body every delivery of an event carries (DESIGN §9). */
export interface EventRecord {
  id: string;
  type: string;
  timestamp: string;
  account_id: string | null;
  environment: Environment;
  data: unknown;
}

/** One HTTP attempt of a delivery, stored as the API shows it. `response_body` is kept for non-2xx answers only. */
export type AttemptRecord = DeliveryAttempt;

/** A delivery of one event to one endpoint. Its id is the `webhook-id` of every attempt. */
export interface DeliveryRecord {
  id: string;
  application_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  /** Scheduled (and test) attempts made so far: the position in the retry schedule. */
  scheduled_attempts: number;
  /** False once the schedule is over (and for tests): a failed manual attempt then fails the delivery. */
  auto_retry: boolean;
  next_trigger: AttemptTrigger;
  next_attempt_at: string | null;
  skipped_reason: string | null;
  payload: EventRecord;
  created_at: string;
  updated_at: string;
}

/** The endpoint as the API returns it: never its secrets. */
export function toEndpointView(e: EndpointRecord): WebhookEndpoint {
  return {
    id: e.id,
    url: e.url,
    // Only catalogue names get past endpoint validation.
    events: [...e.events] as EventType[],
    environment: e.environment,
    concurrency_limit: e.concurrency_limit,
    status: e.status,
    disabled_reason: e.disabled_reason,
    circuit: { ...e.circuit },
    last_verification: e.last_verification,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

export type EndpointView = WebhookEndpoint;

/** The delivery as the API returns it, with the event it carries. */
export function toDeliveryView(d: DeliveryRecord): WebhookDelivery {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    // Deliveries are only made for catalogue events.
    event_type: d.event_type as AnyEventType,
    status: d.status,
    attempts: d.attempts.map((a) => ({ ...a })),
    next_attempt_at: d.next_attempt_at,
    skipped_reason: d.skipped_reason,
    created_at: d.created_at,
    updated_at: d.updated_at,
    payload: d.payload as WebhookDelivery["payload"],
  };
}

export type DeliveryView = WebhookDelivery;

/**
 * A new delivery of `event` to `endpoint`, in the state the endpoint's status gives it, due at `at`, or when
 * the endpoint's circuit may probe if it is open. A test delivery is sent whatever the status (the partner
 * asked for it) and, like any other, retried on the schedule.
 */
export function toNewDelivery(event: EventRecord, endpoint: EndpointRecord, at: string, trigger: "scheduled" | "test" = "scheduled"): DeliveryRecord {
  const isTest = trigger === "test";
  const skipped = !isTest && (endpoint.status === "disabled" || endpoint.status === "pending_verification");
  return {
    id: toDeliveryId(event.id, endpoint.id),
    application_id: endpoint.application_id,
    endpoint_id: endpoint.id,
    event_id: event.id,
    event_type: event.type,
    status: skipped ? "skipped" : "pending",
    attempts: [],
    scheduled_attempts: 0,
    auto_retry: true,
    next_trigger: trigger,
    next_attempt_at: skipped || (!isTest && endpoint.status === "paused") ? null : isWaiting(endpoint.circuit, at) ? endpoint.circuit.opens_until : at,
    skipped_reason: skipped ? `endpoint_${endpoint.status}` : null,
    payload: event,
    created_at: at,
    updated_at: at,
  };
}
