import { toTimestamp } from "../deps.js";
import type { PostResult } from "./http-attempt.js";
import type { AttemptRecord, DeliveryRecord, EndpointRecord } from "./records.js";
import { nextRetryDelay } from "./retry-policy.js";

/** The event type of the test operation's deliveries. */
export const TEST_EVENT_TYPE = "webhook.test";

/** What the engine does with a delivery when its turn comes. */
export type Gate = { kind: "send"; probe: boolean } | { kind: "hold" } | { kind: "wait"; until: number } | { kind: "skip"; reason: string };

/**
 * Decides a delivery's turn from its endpoint: paused and unverified endpoints hold it, a disabled one
 * skips it (a test delivery, first attempt and retries alike, goes out whatever the status: the partner
 * asked for it), and the circuit lets one probe out after its cool-down while everything else waits.
 */
export function toGate(endpoint: EndpointRecord, delivery: DeliveryRecord, probing: boolean, now: number): Gate {
  if (delivery.event_type !== TEST_EVENT_TYPE) {
    if (endpoint.status === "disabled") return { kind: "skip", reason: "endpoint_disabled" };
    if (endpoint.status !== "active") return { kind: "hold" };
  }
  const { circuit } = endpoint;
  if (circuit.state === "closed") return { kind: "send", probe: false };
  const until = circuit.opens_until ? Date.parse(circuit.opens_until) : 0;
  if (probing || (circuit.state === "open" && now < until)) return { kind: "wait", until };
  // Open and cooled down, or half-open with no probe running (after a restart): this one probes.
  return { kind: "send", probe: true };
}

/** The result of one attempt, as the delivery records it, and what follows. */
export interface AttemptOutcome {
  ok: boolean;
  /** The receiver answered 410 Gone: the endpoint is to be disabled. */
  gone: boolean;
  /** When the next scheduled attempt is due (ms), or null when the delivery is settled. */
  nextAt: number | null;
  changes: Partial<DeliveryRecord>;
}

/**
 * Applies the retry schedule to an attempt's result; the next attempt counts from `finishedAt` (clock ms).
 * A manual attempt does not use up a scheduled one.
 */
export function toAttemptOutcome(
  delivery: DeliveryRecord,
  result: PostResult,
  started: Date,
  finishedAt: number,
  schedule: readonly number[],
  random: () => number,
): AttemptOutcome {
  const ok = result.status_code !== null && result.status_code >= 200 && result.status_code < 300;
  const gone = result.status_code === 410;
  const attempt: AttemptRecord = {
    number: delivery.attempts.length + 1,
    trigger: delivery.next_trigger,
    started_at: toTimestamp(started),
    status_code: result.status_code,
    latency_ms: result.latency_ms,
    outcome: ok ? "succeeded" : "failed",
    error: result.error,
    response_body: ok ? null : result.response_body,
    truncated: ok ? false : result.truncated,
  };
  const scheduled = delivery.next_trigger === "manual" ? delivery.scheduled_attempts : delivery.scheduled_attempts + 1;
  const delay = ok || gone || !delivery.auto_retry ? null : nextRetryDelay(schedule, scheduled, random);
  const nextAt = delay === null ? null : finishedAt + delay;
  return {
    ok,
    gone,
    nextAt,
    changes: {
      attempts: [...delivery.attempts, attempt],
      scheduled_attempts: scheduled,
      status: ok ? "succeeded" : nextAt === null ? "failed" : "pending",
      auto_retry: nextAt !== null,
      next_trigger: "scheduled",
      next_attempt_at: nextAt === null ? null : toTimestamp(new Date(nextAt)),
    },
  };
}
