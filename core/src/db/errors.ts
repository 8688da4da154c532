import { sqliteCodeOf } from "../storage/sqlite.js";

// SQLite's extended result codes for constraint failures, and PostgreSQL's SQLSTATEs.
const SQLITE_UNIQUE = new Set([2067, 1555]);
const SQLITE_FOREIGN_KEY = 787;
const PG_UNIQUE = "23505";
const PG_FOREIGN_KEY = "23503";

type EngineError = { errcode?: unknown; code?: unknown; constraint?: unknown; message?: unknown } | null;

/**
 * Whether `error` is a unique constraint's refusal (either engine). `constraint` narrows it to one index:
 * PostgreSQL names the index; SQLite names the table and columns (`products.account_id, products.slug`) or
 * the index for an index on expressions, so pass the index name and its columns as SQLite lists them.
 */
export function isUniqueViolation(error: unknown, constraint?: { index: string; columns: string }): boolean {
  const e = error as EngineError;
  if (typeof e?.errcode === "number" && SQLITE_UNIQUE.has(e.errcode)) {
    return !constraint || String(e.message).includes(constraint.columns) || String(e.message).includes(constraint.index);
  }
  if (e?.code === PG_UNIQUE) return !constraint || e.constraint === constraint.index;
  return false;
}

/** Whether `error` is a foreign key's refusal (either engine). */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as EngineError;
  return e?.errcode === SQLITE_FOREIGN_KEY || e?.code === PG_FOREIGN_KEY || (typeof e?.errcode === "number" && sqliteCodeOf(e) === "SQLITE_CONSTRAINT" && /FOREIGN KEY/.test(String(e.message)));
}
