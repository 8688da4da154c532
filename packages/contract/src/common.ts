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

/** The error envelope every 4xx and 5xx carries. */
export const errorResponse = z.object({
  error: z.object({
    code: z.string().describe("Lower snake_case error code"),
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
