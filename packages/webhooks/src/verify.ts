import { type VerifyFailure, WebhookVerificationError } from "./errors.js";
import { type HeadersInput, WEBHOOK_HEADERS } from "./headers.js";
import { explainMismatch } from "./internal/diagnose.js";
import { readHeader } from "./internal/read-header.js";
import { parseSecrets } from "./internal/secret-key.js";
import { computeSignature, findMatch, parseSignatureHeader } from "./internal/signature.js";

/** Options of {@link verify}. */
export interface VerifyOptions {
  /** How far (seconds) the timestamp may be from `now`, either way. Default 300. */
  toleranceSeconds?: number;
  /** The current time; inject it to test tolerance without waiting. Default: the system clock. */
  now?: () => Date;
}

/** A verified request: its message id, attempt timestamp, and which secret (index) matched. */
export interface VerifySuccess {
  ok: true;
  id: string;
  timestamp: Date;
  secretIndex: number;
}

/** A rejected request: a machine-readable `reason` and a `message` that says what to check. */
export interface VerifyFailed {
  ok: false;
  reason: VerifyFailure;
  message: string;
}

/** Result of {@link verify}; switch on `ok`, then on `reason`. */
export type VerifyResult = VerifySuccess | VerifyFailed;

/** Default tolerance of {@link VerifyOptions.toleranceSeconds}, as Standard Webhooks recommends. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Verifies a Standard Webhooks request. Pass the raw body exactly as received (not a re-serialised
 * JSON object), the request headers, and the endpoint's secret, or several secrets during a
 * rotation. Never throws for a bad request; see {@link verifyOrThrow} for the throwing form.
 */
export function verify(
  payload: string | Uint8Array,
  headers: HeadersInput,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): VerifyResult {
  const fail = (reason: VerifyFailure, message: string): VerifyFailed => ({ ok: false, reason, message });
  const id = readHeader(headers, WEBHOOK_HEADERS.id)?.trim();
  const rawTimestamp = readHeader(headers, WEBHOOK_HEADERS.timestamp)?.trim();
  const signatureHeader = readHeader(headers, WEBHOOK_HEADERS.signature)?.trim();
  const missing = [
    [WEBHOOK_HEADERS.id, id],
    [WEBHOOK_HEADERS.timestamp, rawTimestamp],
    [WEBHOOK_HEADERS.signature, signatureHeader],
  ].flatMap(([name, value]) => (value ? [] : [name]));
  if (!id || !rawTimestamp || !signatureHeader) {
    return fail(
      "missing_headers",
      `Missing ${missing.join(", ")} header${missing.length === 1 ? "" : "s"}. A signed request carries ` +
        "webhook-id, webhook-timestamp and webhook-signature; pass the original request headers " +
        "(a proxy may have dropped them).",
    );
  }

  if (!/^\d+$/.test(rawTimestamp)) {
    return fail(
      "invalid_timestamp",
      `webhook-timestamp "${rawTimestamp.slice(0, 40)}" is not a whole number of unix seconds.`,
    );
  }
  const timestamp = Number(rawTimestamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  const age = nowSeconds - timestamp;
  if (age > tolerance) {
    return fail(
      "timestamp_too_old",
      `webhook-timestamp is ${age} s old (tolerance ${tolerance} s): the request was replayed or delayed, ` +
        "or the sender's and this machine's clocks disagree. Retries are re-signed, so a fresh attempt would pass.",
    );
  }
  if (-age > tolerance) {
    const millis = rawTimestamp.length >= 12 ? " It looks like milliseconds; the header is in seconds." : "";
    return fail(
      "timestamp_too_new",
      `webhook-timestamp is ${-age} s in the future (tolerance ${tolerance} s): ` +
        `the sender's and this machine's clocks disagree.${millis}`,
    );
  }

  const secrets = parseSecrets(secret);
  const fatal = secrets.flatMap((parsed) => (parsed.fatal ? [parsed.fatal] : []));
  if (secrets.length === 0 || fatal.length > 0) {
    return fail(
      "invalid_secret",
      `${fatal.length > 0 ? fatal.join("; ") : "No secret was given"}. ` +
        'Secrets look like "whsec_" followed by base64 (32 random bytes); copy the endpoint\'s secret as shown.',
    );
  }

  const { v1, skipped } = parseSignatureHeader(signatureHeader);
  if (v1.length === 0) {
    const seen = skipped.slice(0, 3).map((entry) => JSON.stringify(entry.slice(0, 20))).join(", ");
    return fail(
      "invalid_signature_format",
      `webhook-signature has no "v1,<base64>" entry (found ${seen || "nothing"}). ` +
        'Entries look like "v1,<base64 HMAC-SHA256>", separated by spaces.',
    );
  }

  for (const parsed of secrets) {
    if (!parsed.key) continue;
    if (findMatch(computeSignature(parsed.key, id, timestamp, payload), v1) !== -1) {
      return { ok: true, id, timestamp: new Date(timestamp * 1000), secretIndex: parsed.index };
    }
  }
  return fail(
    "no_matching_signature",
    explainMismatch({ id, timestamp, payload, signatures: v1, secrets, nowSeconds }),
  );
}

/**
 * Like {@link verify}, but returns the success and throws a {@link WebhookVerificationError}
 * (with `.reason`) on failure. Convenient in handlers that map errors to a 400 in one place.
 */
export function verifyOrThrow(
  payload: string | Uint8Array,
  headers: HeadersInput,
  secret: string | readonly string[],
  options?: VerifyOptions,
): VerifySuccess {
  const result = verify(payload, headers, secret, options);
  if (!result.ok) throw new WebhookVerificationError(result.reason, result.message);
  return result;
}
