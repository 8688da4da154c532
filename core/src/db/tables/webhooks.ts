/** Rows of webhook endpoints, events, deliveries and attempts (migration 0005). */
export interface WebhookTables {
  webhook_endpoints: {
    id: string;
    application_id: string;
    url: string;
    environment: "production" | "test";
    concurrency_limit: number;
    status: "pending_verification" | "active" | "paused" | "disabled";
    disabled_reason: "manual" | "gone" | "circuit_breaker" | null;
    /** Kept in clear: the service signs with it. */
    secret: string;
    previous_secret: string | null;
    /** Until when the previous secret still signs (24 h after a rotation). */
    previous_secret_expires_at: string | null;
    circuit_state: "closed" | "open" | "half_open";
    circuit_consecutive_failures: number;
    /** Re-opens in a row; ten disable the endpoint. */
    circuit_reopen_count: number;
    /** When the next probe may go out while the circuit is open. */
    circuit_opens_until: string | null;
    /** JSON: the last verification's outcome, or null before the first. */
    last_verification: string | null;
    created_at: string;
    updated_at: string;
  };
  /** One row per event type an endpoint subscribes to. */
  webhook_endpoint_events: { endpoint_id: string; event_type: string; /** Order in the endpoint's `events`. */ position: number };
  events: {
    id: string;
    type: string;
    /** Null for `webhook.test`. */
    account_id: string | null;
    environment: "production" | "test";
    /** JSON: the event's `data`. */
    data: string;
    /** The event's `timestamp`. */
    created_at: string;
  };
  webhook_deliveries: {
    id: string;
    endpoint_id: string;
    event_id: string;
    application_id: string;
    event_type: string;
    status: "pending" | "succeeded" | "failed" | "skipped";
    /** Scheduled (and test) attempts made so far: the position in the retry schedule. */
    scheduled_attempts: number;
    /** 1 while failures are retried on the schedule, else 0. */
    auto_retry: number;
    next_trigger: "scheduled" | "manual" | "test";
    skipped_reason: string | null;
    created_at: string;
    updated_at: string;
    /** When the next attempt is due (the delivery's `next_attempt_at`); null when there is none to make. */
    due_at: string | null;
    /** Who is making the attempt, and until when their claim holds. */
    lease_owner: string | null;
    lease_expires_at: string | null;
  };
  delivery_attempts: {
    delivery_id: string;
    number: number;
    trigger: "scheduled" | "manual" | "test";
    started_at: string;
    status_code: number | null;
    latency_ms: number;
    outcome: "succeeded" | "failed";
    error: string | null;
    response_body: string | null;
    /** 1 when `response_body` was cut at 4 KiB, else 0. */
    truncated: number;
  };
}
