import { existsSync } from "node:fs";
import type * as NodeSqlite from "node:sqlite";

/** A connection of Node's built-in SQLite (`node:sqlite`). */
export type SqliteDatabase = NodeSqlite.DatabaseSync;
/** A prepared statement of {@link SqliteDatabase}. */
export type SqliteStatement = NodeSqlite.StatementSync;
/** A value a statement binds. */
export type SqliteValue = NodeSqlite.SQLInputValue;

/**
 * Node 22 prints `ExperimentalWarning: SQLite is an experimental feature` the first time `node:sqlite` loads
 * (24 and 26 print nothing). The module is loaded here, once, with that one warning dropped: a user of
 * `lp serve` did not ask for it. It is loaded through `process.getBuiltinModule`, not an import, so the
 * drop is in place when the module's loading emits it, and bundles need no special case for `node:sqlite`.
 */
function loadSqlite(): typeof NodeSqlite {
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === "ExperimentalWarning" && String(warning).includes("SQLite")) return;
    return (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  let loaded: typeof NodeSqlite | undefined;
  try {
    loaded = process.getBuiltinModule?.("node:sqlite") as typeof NodeSqlite | undefined;
  } finally {
    process.emitWarning = emit;
  }
  if (!loaded) throw new Error(`lp's embedded store needs node:sqlite, which is built into Node 22.13 and newer; this is Node ${process.version}. Install Node 22.13+, 24 or 26.`);
  return loaded;
}

// Loaded at the first open, so commands that never open a database run on any Node.
let sqlite: typeof NodeSqlite | undefined;

/** Options of {@link openSqlite}. */
export interface OpenSqliteOptions {
  /** Open for reading only (the file must exist). */
  readOnly?: boolean;
  /** Refuse to create the file when it is absent. */
  mustExist?: boolean;
  /** How long a statement waits for another connection's lock before it fails with SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/** Opens the database `file` (`:memory:` for one in memory) with a busy timeout. */
export function openSqlite(file: string, options: OpenSqliteOptions = {}): SqliteDatabase {
  const readOnly = options.readOnly === true;
  if ((readOnly || options.mustExist) && file !== ":memory:" && !existsSync(file)) {
    throw Object.assign(new Error(`unable to open database file ${file}: it does not exist`), { code: "SQLITE_CANTOPEN" });
  }
  sqlite ??= loadSqlite();
  const db = new sqlite.DatabaseSync(file, { readOnly });
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 1000))}`);
  return db;
}

/** A statement whose rows are arrays of their columns, in order. */
export interface ArrayStatement<P extends SqliteValue[] | [Record<string, SqliteValue>], R extends unknown[]> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
}

/** A statement that answers one column: each row is its value. */
export interface ColumnStatement<P extends SqliteValue[], R> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

// setReturnArrays arrived in Node 22.16 and 24.0; on 22.13 to 22.15 a row's values are taken in column order.
const rowValues = (row: unknown): unknown[] => Object.values(row as Record<string, unknown>);

/** Prepares `sql` so that its rows come back as arrays (the cheapest shape to read by position). */
export function prepareArrays<P extends SqliteValue[] | [Record<string, SqliteValue>], R extends unknown[]>(db: SqliteDatabase, sql: string): ArrayStatement<P, R> {
  const statement = db.prepare(sql);
  const call = statement as unknown as { get(...p: unknown[]): unknown; all(...p: unknown[]): unknown[]; iterate(...p: unknown[]): IterableIterator<unknown> };
  if (typeof statement.setReturnArrays === "function") {
    statement.setReturnArrays(true);
    return call as unknown as ArrayStatement<P, R>;
  }
  return {
    get: (...params) => {
      const row = call.get(...params);
      return row === undefined ? undefined : (rowValues(row) as R);
    },
    all: (...params) => call.all(...params).map((row) => rowValues(row) as R),
    *iterate(...params) {
      for (const row of call.iterate(...params)) yield rowValues(row) as R;
    },
  };
}

/** Prepares `sql`, whose rows have one column, so that each row is that column's value. */
export function prepareColumn<P extends SqliteValue[], R>(db: SqliteDatabase, sql: string): ColumnStatement<P, R> {
  const rows = prepareArrays<P, [R]>(db, sql);
  return {
    get: (...params) => rows.get(...params)?.[0],
    all: (...params) => rows.all(...params).map((row) => row[0]),
  };
}

/**
 * Runs `work` in one transaction: committed when it returns, rolled back when it throws (unless SQLite rolled
 * it back itself, as it may on a full disk). `isTransaction` arrived in Node 22.16: before it, the rollback is
 * tried, and SQLite's answer that no transaction is active means there is nothing to undo.
 */
export function inTransaction<T>(db: SqliteDatabase, work: () => T): T {
  db.exec("BEGIN");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction !== false) {
      try {
        db.exec("ROLLBACK");
      } catch (rollback) {
        if (!/no transaction is active/.test((rollback as Error).message)) throw rollback;
      }
    }
    throw error;
  }
}

/** The value of a pragma that answers one value (`page_size`, `journal_mode`). */
export function pragmaValue(db: SqliteDatabase, name: string): unknown {
  return prepareColumn<[], unknown>(db, `PRAGMA ${name}`).get();
}

/** A BLOB as a Buffer over the same bytes (node:sqlite answers Uint8Array). */
export function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// SQLite's primary result codes (the low byte of an extended code), by name.
const RESULT_NAMES: Record<number, string> = {
  1: "SQLITE_ERROR", 3: "SQLITE_PERM", 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
  10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 19: "SQLITE_CONSTRAINT", 23: "SQLITE_AUTH", 26: "SQLITE_NOTADB",
};

/**
 * The SQLite result code of an error as its name (`SQLITE_FULL`, `SQLITE_READONLY`), read from node:sqlite's
 * `errcode`; "" when the error is not SQLite's.
 */
export function sqliteCodeOf(error: unknown): string {
  const fields = error as { code?: unknown; errcode?: unknown } | null;
  if (typeof fields?.errcode === "number") return RESULT_NAMES[fields.errcode & 0xff] ?? `SQLITE_${fields.errcode & 0xff}`;
  return typeof fields?.code === "string" && fields.code.startsWith("SQLITE_") ? fields.code : "";
}
