/**
 * The one error type of the core. Every failure a caller can act on carries a code from a closed list;
 * the server maps codes to HTTP statuses in a single table, the client rebuilds it from the envelope.
 */
export const ERROR_CODES = [
  "invalid_json",
  "validation_error",
  "invalid_cursor",
  "unauthenticated",
  "insufficient_scope",
  "account_mismatch",
  "quota_exceeded",
  "not_found",
  "method_not_allowed",
  "deployment_in_progress",
  "idempotency_key_in_use",
  "payload_too_large",
  "unsupported_media_type",
  "idempotency_key_reused",
  "rate_limited",
  "internal_error",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** One entry of `details.issues` on a `validation_error`. */
export interface ValidationIssue {
  path: string;
  code: string;
  message: string;
}

/** A domain failure with a stable code and optional structured details. */
export class LpError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "LpError";
    this.code = code;
    this.details = details;
  }
}

/** True when `value` is an {@link LpError}. */
export function isLpError(value: unknown): value is LpError {
  return value instanceof LpError;
}

/** A 404 naming the kind of resource that was not found. */
export function notFound(resource: string, id?: string): LpError {
  const what = id ? `${resource} '${id}'` : resource;
  return new LpError("not_found", `No ${what} was found.`, { resource });
}

/** A `validation_error` built from issues. */
export function validationError(issues: ValidationIssue[], message?: string): LpError {
  const first = issues[0];
  const text = message ?? (first ? `${first.path || "body"}: ${first.message}` : "The request is invalid.");
  return new LpError("validation_error", text, { issues });
}
