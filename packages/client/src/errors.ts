import type { ErrorEnvelope } from "@lp/contract";

type LpErrorMember = ErrorEnvelope["error"];

/**
 * The `error` member of an API error body (DESIGN §3, `errorResponse` of @lp/contract). `code` is one of
 * `ERROR_CODES`, or `http_<status>` when the answer was not lp's envelope (a proxy in front of it), which
 * is also why `request_id` may be missing.
 */
export type ErrorBody = Omit<LpErrorMember, "request_id" | "code"> & { code: string; request_id?: string };

/**
 * A non-2xx answer from the API, rebuilt from the `{ error: { code, message, details, request_id } }`
 * envelope. Bodies without the envelope (a proxy's HTML page) get the code `http_<status>`.
 */
export class ApiError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** Lower snake_case error code, e.g. `not_found`. */
  readonly code: string;
  /** Structured details, e.g. `issues` of a `validation_error`. */
  readonly details?: Record<string, unknown>;
  /** The request id (body, else the `X-Request-Id` header). */
  readonly requestId?: string;
  /** The parsed response body as it arrived. */
  readonly body: unknown;
  /** The response headers (`Retry-After`, `WWW-Authenticate`, ...); empty when the error was built by hand. */
  readonly headers: Headers;

  constructor(status: number, error: ErrorBody, body: unknown, headers: Headers = new Headers()) {
    super(error.message);
    this.name = "ApiError";
    this.status = status;
    this.code = error.code;
    this.details = error.details;
    this.requestId = error.request_id;
    this.body = body;
    this.headers = headers;
  }
}

/** The request never got an answer: connection refused, DNS failure, reset. */
export class TransportError extends Error {
  /** The URL that could not be reached. */
  readonly url: string;

  constructor(url: string, cause: unknown) {
    const reason = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
    super(`Could not reach ${url}: ${reason}`, { cause });
    this.name = "TransportError";
    this.url = url;
  }
}

/** A credential or setting the operation needs was not given to `createClient`. */
export class ClientConfigError extends Error {
  /** The `createClient` option that is missing, e.g. `token`. */
  readonly missing: "token" | "accountId" | "appId" | "appSecret" | "adminKey";

  constructor(missing: ClientConfigError["missing"], message: string) {
    super(message);
    this.name = "ClientConfigError";
    this.missing = missing;
  }
}

/** `waitForJob` / `waitForDeployment` ran out of time; `last` is the resource as last seen. */
export class WaitTimeoutError<T = unknown> extends Error {
  readonly last: T;
  readonly timeoutMs: number;

  constructor(what: string, timeoutMs: number, last: T) {
    super(`${what} still pending after ${Math.round(timeoutMs / 1000)}s.`);
    this.name = "WaitTimeoutError";
    this.timeoutMs = timeoutMs;
    this.last = last;
  }
}

/** True when `value` is an {@link ApiError}, optionally with the given code. */
export function isApiError(value: unknown, code?: string): value is ApiError {
  return value instanceof ApiError && (code === undefined || value.code === code);
}
