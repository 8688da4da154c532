import { ERROR_STATUS, type ErrorEnvelope } from "@lp/contract";
import { LpError, toDatabaseFault, type ErrorCode } from "@lp/core";
import { HTTPResponse } from "h3";
import { internalErrorLog } from "./internal-error-log.js";

/** The one table from error code to HTTP status (DESIGN §3), kept in @lp/contract with the codes it maps. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = ERROR_STATUS;

/** Extra headers some errors carry. */
function headersFor(error: LpError, plane: "account" | "app" | "admin" | "none"): Record<string, string> {
  if (error.code === "unauthenticated") {
    return { "www-authenticate": plane === "app" ? 'Basic realm="lp developer"' : 'Bearer realm="lp"' };
  }
  if (error.code === "idempotency_key_in_use") return { "retry-after": "1" };
  // PostgreSQL unreachable or restarting: the same request can be sent again shortly.
  if (error.code === "service_unavailable") return { "retry-after": "1" };
  // The disk refuses writes (full, read-only, not permitted): reads go on, writes can be sent again once it takes them.
  if (error.code === "insufficient_storage" || error.code === "storage_unavailable") return { "retry-after": String(error.details?.retry_after_seconds ?? 30) };
  if (error.code === "rate_limited") return { "retry-after": String(error.details?.retry_after_seconds ?? 1) };
  // The rest of the body is left unread: the connection cannot carry another request.
  if (error.code === "payload_too_large") return { connection: "close" };
  if (error.code === "method_not_allowed" && Array.isArray(error.details?.allowed)) {
    return { allow: (error.details.allowed as string[]).join(", ") };
  }
  return {};
}

/**
 * Turns any thrown value into the error envelope; a fault of the database (db/faults.ts) is its 503 or 507.
 * Unknown errors become `internal_error` without their
 * cause, which is logged with the request id instead (its stack once per cause a minute, then a count).
 */
export function toErrorResponse(error: unknown, requestId: string, plane: "account" | "app" | "admin" | "none" = "none"): HTTPResponse {
  let lp: LpError;
  // A database fault no statement saw (the pool found no server to connect to) is the same 503 as one it saw.
  const fault = error instanceof LpError ? null : toDatabaseFault(error);
  if (error instanceof LpError) lp = error;
  else if (fault) lp = fault;
  else {
    internalErrorLog.report(`[lp] ${requestId} internal error:`, error);
    lp = new LpError("internal_error", "Something went wrong on our side. Quote the request id when reporting it.");
  }
  const details = lp.code === "method_not_allowed" ? undefined : lp.details;
  const body: ErrorEnvelope = { error: { code: lp.code, message: lp.message, ...(details ? { details } : {}), request_id: requestId } };
  return new HTTPResponse(JSON.stringify(body), {
    status: STATUS_BY_CODE[lp.code],
    headers: { "content-type": "application/json; charset=utf-8", ...headersFor(lp, plane) },
  });
}
