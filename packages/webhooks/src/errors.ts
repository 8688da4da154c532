/**
 * Why a webhook failed verification. A closed list: code may switch on it exhaustively.
 *
 * - `missing_headers`: `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent or empty.
 * - `invalid_timestamp`: `webhook-timestamp` is not an integer number of unix seconds.
 * - `timestamp_too_old` / `timestamp_too_new`: outside the tolerance window around `now`.
 * - `invalid_signature_format`: `webhook-signature` has no `v1,<base64>` entry.
 * - `invalid_secret`: a configured secret is empty or not base64 even after obvious repairs.
 * - `no_matching_signature`: well-formed, but no signature matches any secret.
 */
export type VerifyFailure =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "invalid_signature_format"
  | "invalid_secret"
  | "no_matching_signature";

/** Every {@link VerifyFailure}, in the order `verify` checks them. */
export const VERIFY_FAILURES: readonly VerifyFailure[] = Object.freeze([
  "missing_headers",
  "invalid_timestamp",
  "timestamp_too_old",
  "timestamp_too_new",
  "invalid_secret",
  "invalid_signature_format",
  "no_matching_signature",
]);

/**
 * Thrown by `verifyOrThrow`. `reason` says what failed; `message` says why and what to check.
 */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  /** The machine-readable failure. */
  readonly reason: VerifyFailure;

  constructor(reason: VerifyFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** True when `value` is a {@link WebhookVerificationError} (also across duplicated module copies). */
export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  return (
    value instanceof WebhookVerificationError ||
    (value instanceof Error &&
      value.name === "WebhookVerificationError" &&
      VERIFY_FAILURES.includes((value as { reason?: VerifyFailure }).reason as VerifyFailure))
  );
}
