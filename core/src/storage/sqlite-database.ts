import { closeSync, openSync } from "node:fs";
import { FILE_MODE } from "./data-dir-files.js";
import { applyProductSchema, PRODUCT_SCHEMA } from "./sqlite-products.js";
import { openSqlite, prepareColumn, type ColumnStatement, type SqliteDatabase } from "./sqlite.js";

/** The database of a data dir, beside its `format.json`. */
export const DATABASE_FILE = "lp.db";

/**
 * The tables of the embedded store (format 2). `records` holds every record as its JSON text under its
 * storage key (`acct:a:products:<id>`); `parent` is the key up to its last `:` (the collection), and
 * `created_at` is read from the text by SQLite itself, so one index serves every list's newest-first walk
 * (`ordered-blocks.ts`). `media` holds uploads and generated images as blobs under their keys.
 */
const TABLES = `
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

/** Everything a new database is made with: the tables, and what the products lists read (`sqlite-products.ts`). */
export const SCHEMA = TABLES + PRODUCT_SCHEMA;

/**
 * Opens (creating it owner-only if needed) the database at `file` in WAL mode with its tables: the
 * connection the main thread reads through. SQLite gives the `-wal` and `-shm` files the database's mode.
 */
export function openDatabase(file: string, options: { readonly?: boolean } = {}): SqliteDatabase {
  if (!options.readonly) closeSync(openSync(file, "a", FILE_MODE));
  const db = openSqlite(file, { readOnly: options.readonly === true, busyTimeoutMs: 1000 });
  if (!options.readonly) {
    db.exec("PRAGMA journal_mode = WAL");
    // 16 MB of page cache for the reads of lists and GETs (node:sqlite's SQLite keeps 2 MB by default); the
    // writer thread's connection keeps 2 MB (sqlite-writer-thread.ts).
    db.exec("PRAGMA cache_size = -16000");
    db.exec(TABLES);
    applyProductSchema(db);
  }
  return db;
}

/** The first key after every key that starts with `prefix` (`a:` gives `a;`), for a range scan; null for "". */
export function prefixEnd(prefix: string): string | null {
  if (prefix === "") return null;
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

type Pluck<P extends string[], R> = ColumnStatement<P, R>;

/** The statements the main thread reads with (each answers one column), prepared once per connection. */
export interface ReadStatements {
  get: Pluck<[string], string>;
  has: Pluck<[string], number>;
  keysFrom: Pluck<[string, string], string>;
  keysAll: Pluck<[string], string>;
  media: Pluck<[string], Uint8Array>;
  hasMedia: Pluck<[string], number>;
  mediaKeysFrom: Pluck<[string, string], string>;
  mediaKeysAll: Pluck<[string], string>;
}

/** Prepares the {@link ReadStatements} of a connection. */
export function readStatements(db: SqliteDatabase): ReadStatements {
  return {
    get: prepareColumn<[string], string>(db, "SELECT value FROM records WHERE key = ?"),
    has: prepareColumn<[string], number>(db, "SELECT 1 FROM records WHERE key = ?"),
    keysFrom: prepareColumn<[string, string], string>(db, "SELECT key FROM records WHERE key >= ? AND key < ? ORDER BY key"),
    keysAll: prepareColumn<[string], string>(db, "SELECT key FROM records WHERE key >= ? ORDER BY key"),
    media: prepareColumn<[string], Uint8Array>(db, "SELECT bytes FROM media WHERE key = ?"),
    hasMedia: prepareColumn<[string], number>(db, "SELECT 1 FROM media WHERE key = ?"),
    mediaKeysFrom: prepareColumn<[string, string], string>(db, "SELECT key FROM media WHERE key >= ? AND key < ? ORDER BY key"),
    mediaKeysAll: prepareColumn<[string], string>(db, "SELECT key FROM media WHERE key >= ? ORDER BY key"),
  };
}
