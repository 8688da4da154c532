import type { VerificationOutcome, WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from "@lp/client";
import type { Column } from "../../runtime/table.js";

/** Columns of `lp webhooks list`. */
export const endpointColumns: Column<WebhookEndpoint>[] = [
  ["id", (e) => e.id],
  ["status", (e) => e.status],
  ["environment", (e) => e.environment],
  ["url", (e) => e.url],
  ["events", (e) => e.events],
];

/** Fields of one endpoint; `secret` appears only when the answer carries it. */
export const endpointFields: Column<WebhookEndpoint & { secret?: string }>[] = [
  ...endpointColumns,
  ["concurrency", (e) => e.concurrency_limit],
  ["disabled_reason", (e) => e.disabled_reason],
  ["circuit", (e) => e.circuit?.state],
  ["last_verification", (e) => describeOutcome(e.last_verification)],
  ["created", (e) => e.created_at],
  ["updated", (e) => e.updated_at],
];

/** Fields with the secret, for create and rotate-secret. */
export const endpointWithSecretFields: Column<WebhookEndpointWithSecret>[] = [
  ...endpointFields,
  ["verification", (e) => ("verification" in e ? describeOutcome(e.verification) : null)],
  ["previous_secret_expires", (e) => ("previous_secret_expires_at" in e ? e.previous_secret_expires_at : null)],
  ["secret", (e) => e.secret],
];

/** `succeeded (200 in 12ms)` / `failed: connection refused`. */
export function describeOutcome(v: VerificationOutcome | WebhookEndpoint["last_verification"] | undefined): string | null {
  if (!v) return null;
  return v.outcome === "succeeded" ? `succeeded (${v.status_code} in ${v.latency_ms}ms)` : `failed: ${v.error ?? v.status_code ?? "unknown"}`;
}

/** Fields of one delivery. */
export const deliveryFields: Column<WebhookDelivery>[] = [
  ["id", (d) => d.id],
  ["event", (d) => d.event_type],
  ["event_id", (d) => d.event_id],
  ["status", (d) => d.status],
  ["next_attempt", (d) => d.next_attempt_at],
  ["skipped_reason", (d) => d.skipped_reason],
  ["attempts", (d) => (d.attempts ?? []).map((a) => `#${a.number} ${a.trigger} ${a.outcome} ${a.status_code ?? a.error ?? ""} ${a.latency_ms}ms`.trim())],
  ["created", (d) => d.created_at],
];

/** Columns of `lp webhooks deliveries`. */
export const deliveryColumns: Column<WebhookDelivery>[] = [
  ["id", (d) => d.id],
  ["event", (d) => d.event_type],
  ["status", (d) => d.status],
  ["attempts", (d) => d.attempts?.length ?? 0],
  ["last", (d) => {
    const last = d.attempts?.at(-1);
    return last ? `${last.status_code ?? last.outcome} in ${last.latency_ms ?? "?"}ms` : null;
  }],
  ["created", (d) => d.created_at],
];
