import { z } from "zod";

/** ISO 8601 UTC with milliseconds, e.g. `2026-11-22T02:24:58.123Z`: every timestamp lp writes. */
export const timestampSchema = z.iso.datetime({ offset: false }).describe("ISO 8601 UTC with milliseconds");

/** The `pagination` member of every list body. */
export const paginationSchema = z.object({
  next_cursor: z.string().nullable().describe("Opaque cursor of the next page; null on the last one"),
  has_more: z.boolean(),
});

/** `{ data }`: the envelope of every single-resource answer. */
export const dataOf = <T extends z.ZodType>(item: T) => z.object({ data: item });

/** `{ data: [...], pagination }`: the envelope of every listing. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), pagination: paginationSchema });

/** Every error code lp answers with: a closed list (DESIGN §3); statuses are mapped in the server. */
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
  "record_unreadable",
  "service_unavailable",
  "storage_unavailable",
  "insufficient_storage",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The HTTP status each error code is answered with (DESIGN §3): the server maps codes through this one
 * table, and `lp conformance` holds an instance to it.
 */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_json: 400,
  validation_error: 400,
  invalid_cursor: 400,
  unauthenticated: 401,
  insufficient_scope: 403,
  account_mismatch: 403,
  quota_exceeded: 403,
  not_found: 404,
  method_not_allowed: 405,
  deployment_in_progress: 409,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal_error: 500,
  record_unreadable: 500,
  service_unavailable: 503,
  storage_unavailable: 503,
  insufficient_storage: 507,
};

/** The error envelope every 4xx and 5xx carries. */
export const errorResponse = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES).describe("Lower snake_case error code, from a closed list"),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    request_id: z.string(),
  }),
});

export type Timestamp = z.infer<typeof timestampSchema>;
export type Pagination = z.infer<typeof paginationSchema>;
/** One page of a listing. */
export interface ListPage<T> {
  data: T[];
  pagination: Pagination;
}
export type ErrorEnvelope = z.infer<typeof errorResponse>;
