/** The database of a data dir, beside its `format.json`. */
export const DATABASE_FILE = "lp.db";

/**
 * The tables of a format-2 database: every record as its JSON text under its storage key
 * (`acct:a:products:<id>`) in `records`, and media as blobs in `media`. lp writes this layout only as the
 * step between format 1 and format 3 (`migration/format-1-migration.ts`, then `db/open-data-dir.ts`), and
 * reads it to migrate (`db/import-records.ts`).
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS records (
  key TEXT NOT NULL PRIMARY KEY,
  parent TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT GENERATED ALWAYS AS (CASE WHEN json_valid(value) THEN json_extract(value, '$.created_at') END) VIRTUAL
);
CREATE INDEX IF NOT EXISTS records_by_created ON records (parent, created_at, key);
CREATE TABLE IF NOT EXISTS media (
  key TEXT NOT NULL PRIMARY KEY,
  bytes BLOB NOT NULL
);
`;

/** The first key after every key that starts with `prefix` (`a:` gives `a;`), for a range scan; null for "". */
export function prefixEnd(prefix: string): string | null {
  if (prefix === "") return null;
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
