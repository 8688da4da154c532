import { toNewDelivery, type EndpointRecord, type EventRecord } from "../webhooks/records.js";
import { toAttemptRow, toDeliveryRow } from "../webhooks/delivery-rows.js";
import { toJson } from "./column-types.js";
import type { Format2Record } from "./format-2-records.js";
import type { RowBuild } from "./format-2-row-build.js";

/**
 * Webhook endpoints of the applications written (with their subscriptions), deliveries with their attempts
 * and events (a pending one due at its `next_attempt_at`), and the events of the outbox, each stored with a
 * delivery to every endpoint it goes to that has none of it, as the fan-out makes them.
 */
export function addWebhookRows(build: RowBuild, applications: ReadonlySet<string>): void {
  const { byKind, rows, add, leave, once } = build;
  const endpoints = new Map<string, EndpointRecord>();
  for (const { key, record: e } of byKind.endpoint) {
    if (!applications.has(e.application_id)) {
      leave(key, `names application ${e.application_id}, which is not there`);
      continue;
    }
    if (!once("webhook_endpoints", e.id, key)) continue;
    endpoints.set(e.id, e as unknown as EndpointRecord);
    add("webhook_endpoints", {
      id: e.id,
      application_id: e.application_id,
      url: e.url,
      environment: e.environment,
      concurrency_limit: e.concurrency_limit,
      status: e.status,
      disabled_reason: e.disabled_reason,
      secret: e.secret,
      previous_secret: e.previous_secret,
      previous_secret_expires_at: e.previous_secret_expires_at,
      circuit_state: e.circuit.state,
      circuit_consecutive_failures: e.circuit.consecutive_failures,
      circuit_reopen_count: e.circuit.reopen_count,
      circuit_opens_until: e.circuit.opens_until,
      last_verification: e.last_verification === null ? null : toJson(e.last_verification),
      created_at: e.created_at,
      updated_at: e.updated_at,
    });
    [...new Set(e.events)].forEach((event_type, position) => add("webhook_endpoint_events", { endpoint_id: e.id, event_type, position }));
  }

  const events = new Set<string>();
  const addEvent = (event: Format2Record<"outbox">) => {
    if (events.has(event.id)) return;
    events.add(event.id);
    add("events", { id: event.id, type: event.type, account_id: event.account_id, environment: event.environment, data: toJson(event.data ?? null), created_at: event.timestamp });
  };
  const deliveries = new Set<string>();
  for (const { key, record: d } of byKind.delivery) {
    if (!endpoints.has(d.endpoint_id) || d.payload.id !== d.event_id || deliveries.has(d.id)) {
      leave(key, deliveries.has(d.id) ? `a second record of delivery ${d.id}` : d.payload.id !== d.event_id ? `its payload is event ${d.payload.id}, not ${d.event_id}` : `names endpoint ${d.endpoint_id}, which is not there`);
      continue;
    }
    deliveries.add(d.id);
    addEvent(d.payload);
    add("webhook_deliveries", toDeliveryRow(d));
    const numbers = new Set<number>();
    for (const a of d.attempts) {
      if (numbers.has(a.number)) continue;
      numbers.add(a.number);
      add("delivery_attempts", toAttemptRow(d.id, a));
    }
  }

  // The outbox's events were stored but not yet fanned out: each goes to the endpoints the fan-out would
  // choose (subscribed to its type, in its environment, of an application acting for its account).
  const actsFor = new Set((rows.application_accounts ?? []).map((r) => `${r.application_id}\n${r.account_id}`));
  for (const { record: event } of byKind.outbox) {
    addEvent(event);
    if (event.account_id === null) continue;
    for (const endpoint of endpoints.values()) {
      if (!endpoint.events.includes(event.type) || endpoint.environment !== event.environment || !actsFor.has(`${endpoint.application_id}\n${event.account_id}`)) continue;
      const made = toNewDelivery(event as EventRecord, endpoint, event.timestamp);
      if (deliveries.has(made.id)) continue;
      deliveries.add(made.id);
      add("webhook_deliveries", toDeliveryRow(made));
    }
  }
}
