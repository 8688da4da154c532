import type { SampleEventType } from "./sample-events.js";

/** Options of `checkReceiver`. */
export interface CheckReceiverOptions {
  /** The receiver's URL (http or https), exactly as the endpoint would be registered. */
  url: string;
  /** The secret the receiver verifies with (`whsec_…`). */
  secret: string;
  /**
   * A second secret the receiver also accepts during a rotation. Adds a must-accept case: a delivery
   * whose only matching signature is made with this secret.
   */
  previousSecret?: string;
  /** Fail when the receiver does not answer lp's verification challenge (otherwise that is reported as info). */
  expectChallenge?: boolean;
  /** Extra headers on every request (a receiver behind auth). Webhook headers cannot be replaced. */
  headers?: Record<string, string>;
  /** How long one request may take, answer included, before it counts as crashed. Default 15000 ms, lp's own. */
  timeoutMs?: number;
  /** The event delivered: a type from the catalogue (its sample data) or your own. Default `product.created`. */
  event?: SampleEventType | { type: string; data: unknown };
  /** The clock the deliveries are signed with. Default: the system clock. */
  now?: () => Date;
}

/** What a case needs to pass: a 2xx, a 4xx, lp's challenge echo, or nothing (informative). */
export type CheckExpectation = "accept" | "refuse" | "challenge" | "info";

/** A case's outcome. `info` never fails the check; it says something the check cannot judge. */
export type CheckVerdict = "pass" | "fail" | "info";

/** The cases, in the order they are sent. */
export type CheckCaseId =
  | "valid"
  | "rotation"
  | "previous-secret"
  | "challenge"
  | "tampered-body"
  | "wrong-secret"
  | "no-signature"
  | "malformed-signature"
  | "stale-timestamp"
  | "future-timestamp"
  | "reserialized-json"
  | "duplicate-id";

/** One request of a case and what came back. */
export interface CheckExchange {
  /** The `webhook-id` sent. */
  webhookId: string;
  /** The `webhook-timestamp` sent (unix seconds). */
  timestamp: number;
  /** The `webhook-signature` sent, or null when the case leaves it out. */
  signature: string | null;
  /** The HTTP status, or null when no answer came (timeout, network error). */
  status: number | null;
  /** `timeout` or a network error (`ECONNREFUSED: …`), when no status came. */
  error: string | null;
  /** `Location` of a 3xx (never followed, as lp never follows one). */
  location: string | null;
  /** The first bytes of the answer (at most 1 KiB), for the report. */
  body: string;
  /** From the request's first byte to the answer's last, in milliseconds. */
  latencyMs: number;
}

/** One case of the report: what was sent, what was expected, what came back, and the verdict. */
export interface CheckCase {
  id: CheckCaseId;
  /** What the case sends, in a sentence. */
  title: string;
  expected: CheckExpectation;
  /** One line: the status(es) or error, and a redirect's target. */
  got: string;
  verdict: CheckVerdict;
  /** Why the verdict, and what to fix when it fails. */
  note: string;
  /** True when an answer took longer than 10 s: lp's verification gives up at 10 s. */
  slow: boolean;
  exchanges: CheckExchange[];
}

/** The report of `checkReceiver`: data to print, assert on, or serialise. */
export interface CheckReport {
  url: string;
  /** The event type delivered in the valid cases. */
  eventType: string;
  /** True when no case failed. */
  ok: boolean;
  counts: { pass: number; fail: number; info: number };
  /** Ids of the failed cases, in order. */
  failed: CheckCaseId[];
  cases: CheckCase[];
}
