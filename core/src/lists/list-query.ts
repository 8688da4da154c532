import { z } from "zod";

const dateBoundMessage = "must be a real ISO 8601 date (2026-01-31) or date-time with seconds and a zone (2026-01-31T12:00:00Z)";

/**
 * ISO 8601 date (`2026-01-31`) or date-time with seconds and a zone. zod's own formats, so the document
 * says `format: date` / `format: date-time` with the same patterns the server applies: impossible days
 * (`2026-02-30`, `0000-00-00`) fail both.
 */
export const isoDateOrDateTime = z
  .union([z.iso.date({ error: dateBoundMessage }), z.iso.datetime({ offset: true, error: dateBoundMessage })], { error: dateBoundMessage })
  .describe("ISO 8601 date or date-time; exclusive bound");

/** `per_page`: 1 to 100, default 20. Query strings arrive as text, so digits are coerced. */
export const perPageSchema = z.coerce
  .number({ error: "must be an integer from 1 to 100" })
  .int("must be an integer from 1 to 100")
  .min(1, "must be an integer from 1 to 100")
  .max(100, "must be an integer from 1 to 100")
  .default(20);

/** The query parameters every listing shares. `sorts` lists the sort fields allowed for it. */
export function listQuerySchema<const S extends readonly [string, ...string[]]>(sorts: S) {
  const values = sorts.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];
  return z.object({
    cursor: z.string().min(1).max(1024).optional().describe("Opaque cursor from the previous page's pagination.next_cursor"),
    per_page: perPageSchema,
    sort: z
      .enum(values as unknown as readonly [`${S[number]}` | `-${S[number]}`, ...(`${S[number]}` | `-${S[number]}`)[]])
      .default(`-created_at` as `-${S[number]}`)
      .describe("Sort field; a leading '-' sorts descending"),
  });
}

/** Splits `-created_at` into its field and direction. */
export function toSort(sort: string): { field: string; descending: boolean } {
  return sort.startsWith("-") ? { field: sort.slice(1), descending: true } : { field: sort, descending: false };
}

/** One page of a listing as services return it. */
export interface Page<T> {
  data: T[];
  pagination: { next_cursor: string | null; has_more: boolean };
}
