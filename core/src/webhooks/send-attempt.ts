import type { AddressGuard } from "./address-guard.js";
import type { Poster, PostResult } from "./http-attempt.js";
import type { DeliveryRecord, DeliveryTarget } from "./records.js";
import { eventText } from "./record-text.js";
import { toAttemptHeaders } from "./signing.js";

/** What sending one attempt needs. */
export interface SendDeps {
  post: Poster;
  guard: AddressGuard;
  timeoutMs: number;
  monotonic: () => number;
}

/**
 * Sends one signed attempt of `delivery` to `endpoint` at `started`: its `webhook-id` is the delivery's id,
 * the same on every attempt in every process. A blocked address is a failed attempt, never a request.
 */
export function sendAttempt(deps: SendDeps, endpoint: DeliveryTarget, delivery: DeliveryRecord, started: Date): Promise<PostResult> {
  // Without --public every address is allowed: the attempt goes out with no check to wait for.
  if (!deps.guard.publicOnly) return post(deps, endpoint, delivery, started);
  return deps.guard.check(endpoint.url).then((blocked) =>
    blocked ? { status_code: null, latency_ms: 0, error: `blocked: ${blocked}`, response_body: null, truncated: false } : post(deps, endpoint, delivery, started),
  );
}

function post(deps: SendDeps, endpoint: DeliveryTarget, delivery: DeliveryRecord, started: Date): Promise<PostResult> {
  // The exact bytes sent: the event serialised once for every attempt of every delivery of it.
  const body = eventText(delivery.payload);
  return deps.post({
    url: endpoint.url,
    body,
    headers: toAttemptHeaders({ id: delivery.id, body, endpoint, now: started, eventType: delivery.event_type, attempt: delivery.attempts.length + 1 }),
    timeoutMs: deps.timeoutMs,
    monotonic: deps.monotonic,
  });
}
