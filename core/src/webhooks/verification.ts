import { CHALLENGE_EVENT_TYPE } from "@lp/webhooks";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { AddressGuard } from "./address-guard.js";
import type { Poster } from "./http-attempt.js";
import { toOrderedId } from "../ids.js";
import type { EndpointRecord, VerificationResult } from "./records.js";
import { toAttemptHeaders } from "./signing.js";

/** What a challenge needs. */
export interface ChallengeDeps {
  clock: Clock;
  ids: IdSource;
  post: Poster;
  guard: AddressGuard;
  timeoutMs: number;
  monotonic: () => number;
}

/**
 * Posts a freshly signed nonce challenge to the endpoint. Only a 200 within the timeout whose body is
 * `{"challenge":"<nonce>"}` or the bare nonce counts; a redirect is an answer, and a failing one.
 */
export async function runChallenge(deps: ChallengeDeps, endpoint: EndpointRecord): Promise<VerificationResult> {
  const at = deps.clock.now();
  const nonce = deps.ids.bytes(24).toString("base64url");
  const body = JSON.stringify({ type: CHALLENGE_EVENT_TYPE, data: { challenge: nonce } });
  const blocked = await deps.guard.check(endpoint.url);
  if (blocked) return { outcome: "failed", status_code: null, latency_ms: 0, error: `blocked: ${blocked}`, at: toTimestamp(at) };
  const result = await deps.post({
    url: endpoint.url,
    body,
    headers: toAttemptHeaders({ id: toOrderedId("evt", deps.clock, deps.ids), body, endpoint, now: at, eventType: CHALLENGE_EVENT_TYPE, attempt: 1 }),
    timeoutMs: deps.timeoutMs,
    monotonic: deps.monotonic,
    keepSuccessBody: true,
  });
  const error = result.error ?? judge(result.status_code, result.response_body ?? "", result.truncated, nonce);
  return { outcome: error ? "failed" : "succeeded", status_code: result.status_code, latency_ms: result.latency_ms, error, at: toTimestamp(at) };
}

function judge(status: number | null, text: string, truncated: boolean, nonce: string): string | null {
  if (status !== 200) return `expected status 200, got ${status}`;
  if (!truncated && text.trim() === nonce) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && (parsed as { challenge?: unknown }).challenge === nonce) return null;
  } catch {
    // Not JSON and not the bare nonce: reported below.
  }
  return 'the response did not echo the challenge: answer 200 with {"challenge":"<nonce>"} or the nonce as plain text';
}
