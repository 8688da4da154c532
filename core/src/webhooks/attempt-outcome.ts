import { toTimestamp } from "../deps.js";
import type { PostResult } from "./http-attempt.js";
import type { AttemptRecord, DeliveryRecord, DeliveryTarget, EndpointRecord } from "./records.js";
import { circuitAfterFailure, circuitAfterSuccess, nextRetryDelay } from "./retry-policy.js";

/** The event type of the test operation's deliveries. */
export const TEST_EVENT_TYPE = "webhook.test";

/** What the engine does with a claimed delivery, by its endpoint's status: send it, hold it (no due time), or skip it. */
export type Gate = { kind: "send" } | { kind: "hold" } | { kind: "skip"; reason: string };

/**
 * Decides a claimed delivery's turn from its endpoint's status: paused and unverified endpoints hold it, a
 * disabled one skips it; a test delivery, first attempt and retries alike, goes out whatever the status (the
 * partner asked for it). The circuit is the claim's to enforce: a delivery is claimed only when it lets one out.
 */
export function toGate(endpoint: DeliveryTarget, delivery: DeliveryRecord): Gate {
  if (delivery.event_type === TEST_EVENT_TYPE || endpoint.status === "active") return { kind: "send" };
  if (endpoint.status === "disabled") return { kind: "skip", reason: "endpoint_disabled" };
  return { kind: "hold" };
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

/** What an attempt's result changes on its endpoint: the circuit, and the status when it disables it. */
export interface EndpointAfterAttempt {
  circuit: EndpointRecord["circuit"];
  status?: "disabled";
  disabled_reason?: "gone" | "circuit_breaker";
}

/**
 * The endpoint's circuit after an attempt (its record read under its lock), or null when nothing changes: a
 * success closes it (a clean circuit is left as it is), a failure counts, opens it at the threshold, re-opens
 * it for longer after a failed probe; the tenth re-open in a row, or a 410, disables the endpoint.
 */
export function toEndpointAfterAttempt(endpoint: DeliveryTarget, outcome: Pick<AttemptOutcome, "ok" | "gone">, probe: boolean, now: number): EndpointAfterAttempt | null {
  if (outcome.ok) {
    const clean = endpoint.circuit.state === "closed" && endpoint.circuit.consecutive_failures === 0;
    return clean ? null : { circuit: circuitAfterSuccess() };
  }
  const { circuit, disable } = circuitAfterFailure(endpoint.circuit, now, probe);
  const reason = outcome.gone ? "gone" : disable ? "circuit_breaker" : null;
  return reason ? { circuit, status: "disabled", disabled_reason: reason } : { circuit };
}
