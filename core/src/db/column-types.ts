import type { Dialect } from "./database.js";

/**
 * Column types that differ between the two engines; everything else is written the same way. Times are
 * `text` on both: ISO 8601 in UTC with milliseconds (`2026-12-02T10:00:00.000Z`), as the API shows them,
 * which sort as text in time order and compare the same on both engines.
 */
export function columnTypes(dialect: Dialect) {
  const pg = dialect === "postgres";
  return {
    /**
     * A JSON document (a theme, SEO, an event's body): `json` on PostgreSQL (checked, and kept as written:
     * `jsonb` would reorder an object's keys, and answers must read the same on both engines), text on SQLite.
     */
    json: pg ? ("json" as const) : ("text" as const),
    /** A 64-bit integer (byte counts, quotas). */
    bigint: pg ? ("bigint" as const) : ("integer" as const),
    /** A number with a fraction (prices). */
    real: pg ? ("double precision" as const) : ("real" as const),
    /** Bytes (media on PostgreSQL). */
    blob: pg ? ("bytea" as const) : ("blob" as const),
  };
}

/** A JSON column's value as written: its text (both engines take text for a JSON column). */
export const toJson = (value: unknown): string => JSON.stringify(value);

/** A JSON column's value as read (both engines answer its text). */
export const fromJson = <T>(text: string | null): T => (text === null ? (null as T) : (JSON.parse(text) as T));
