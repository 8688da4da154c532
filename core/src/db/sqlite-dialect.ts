import { SqliteDialect, SqliteQueryCompiler, type QueryCompiler } from "kysely";
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement as KyselySqliteStatement } from "kysely";
import type { SqliteDatabase, SqliteValue } from "../storage/sqlite.js";

/**
 * Kysely's SQLite dialect over Node's built-in `node:sqlite`. The dialect expects a better-sqlite3-shaped
 * database; the only differences are that a node:sqlite statement does not say whether it returns rows
 * (it does when it has result columns) and binds parameters as arguments rather than one array.
 */
export function createNodeSqliteDialect(db: SqliteDatabase): SqliteDialect {
  const statements = createStatementCache(db);
  const database: KyselySqliteDatabase = {
    close: () => db.close(),
    prepare(sql: string): KyselySqliteStatement {
      const { statement, reader } = statements.get(sql);
      if (sql === "rollback") return rollbackOf(statement);
      const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
      return {
        reader,
        all: (parameters) => statement.all(...bind(parameters)),
        run: (parameters) => statement.run(...bind(parameters)),
        iterate: (parameters) => statement.iterate(...bind(parameters)),
      };
    },
  };
  return new NodeSqliteDialect({ database });
}

/**
 * SQLite's dialect with each parameter written `+?`: unary plus, which SQLite defines as a no-op on any value
 * (the value, its type and its lack of affinity unchanged), where Kysely writes a bare `?`. node:sqlite's
 * SQLite plans a join again at every run of its prepared statement when one of its comparisons has a bare
 * parameter for operand, which costs as much as preparing it (the fan-out's three-table read of subscribers:
 * about 60 µs a run with `?`, 6 µs with `+?`, on this machine); single-table statements run as fast either way.
 */
class NodeSqliteDialect extends SqliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new PlusParameterCompiler();
  }
}

class PlusParameterCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return "+?";
  }
}

const NO_TRANSACTION = /no transaction is active/;

/**
 * Kysely's `rollback` after a failed statement. SQLite may have rolled the transaction back itself already
 * (it may when a statement fails for a full disk or an I/O error): the rollback then finds none, and its own
 * error would take the place of the statement's. Nothing is left to undo then, so it is done.
 */
function rollbackOf(statement: ReturnType<SqliteDatabase["prepare"]>): KyselySqliteStatement {
  const run = () => {
    try {
      return statement.run();
    } catch (error) {
      if (NO_TRANSACTION.test((error as Error).message)) return { changes: 0, lastInsertRowid: 0 };
      throw error;
    }
  };
  return { reader: false, all: () => [], run, iterate: () => [][Symbol.iterator]() };
}

/** How many prepared statements a connection keeps; a query's text is one of a few hundred shapes. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Prepared statements by their SQL text, with whether each returns rows, the least recently used dropped past
 * {@link STATEMENT_CACHE_SIZE}: Kysely compiles each query to the same text every time, and preparing it again
 * costs more than running it (a primary-key read: about 4 µs prepared once, 15 µs more when prepared each time,
 * on this machine).
 */
function createStatementCache(db: SqliteDatabase) {
  const cache = new Map<string, { statement: ReturnType<SqliteDatabase["prepare"]>; reader: boolean }>();
  return {
    get(sql: string) {
      let entry = cache.get(sql);
      if (entry) {
        cache.delete(sql);
      } else {
        const statement = db.prepare(sql);
        entry = { statement, reader: readerOf(statement, sql) };
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, entry);
      return entry;
    },
  };
}

/** How many statement texts the process remembers the answer of {@link returnsRows} for. */
const READER_CACHE_SIZE = 2000;
const readers = new Map<string, boolean>();

/**
 * Whether the statement returns rows, asked once per text in the process: the answer is the text's (whether it
 * has result columns), the same on every connection, and `columns()` describes each column to tell it (a
 * connection per test prepares every statement afresh).
 */
function readerOf(statement: ReturnType<SqliteDatabase["prepare"]>, sql: string): boolean {
  let reader = readers.get(sql);
  if (reader === undefined) {
    reader = returnsRows(statement, sql);
    if (readers.size >= READER_CACHE_SIZE) readers.delete(readers.keys().next().value!);
    readers.set(sql, reader);
  }
  return reader;
}

// `columns()` arrived in Node 22.16 and 23.11; before it, a statement returns rows when its text says so.
const READER = /^\s*(?:select|with|pragma|values|explain)\b|\breturning\b/i;
function returnsRows(statement: ReturnType<SqliteDatabase["prepare"]>, sql: string): boolean {
  return typeof statement.columns === "function" ? statement.columns().length > 0 : READER.test(sql);
}

/** node:sqlite binds numbers, bigints, strings, bytes and null; a boolean becomes 0 or 1, as SQLite stores it. */
function toSqliteValue(value: unknown): SqliteValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value === undefined) return null;
  return value as SqliteValue;
}
