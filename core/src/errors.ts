import type { ErrorCode } from "@lp/contract";
import type { z } from "zod";

/**
 * The one error type of the core. Every failure a caller can act on carries a code from a closed list;
 * the server maps codes to HTTP statuses in a single table, the client rebuilds it from the envelope.
 * The list is part of the wire contract (the `code` of every error envelope), so it lives in @lp/contract.
 */
export { ERROR_CODES, type ErrorCode } from "@lp/contract";

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

/**
 * The database (PostgreSQL) cannot run a statement now: unreachable, restarting or still starting up. The
 * request may be retried as it is (the server answers 503 with `Retry-After: 1`); `cause` is the driver's error.
 */
export class StorageUnavailableError extends LpError {
  constructor(message = "The data store is unavailable right now; retry in a moment.", options?: { cause?: unknown }) {
    super("service_unavailable", message, { retry_after_seconds: 1 });
    this.name = "StorageUnavailableError";
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
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

/** zod issues as the `details.issues` of a `validation_error`. */
export function toIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    code: issue.code,
    message: issue.message,
  }));
}

/** Parses `value` with `schema`, or throws a `validation_error` naming every problem. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(toIssues(result.error));
}
