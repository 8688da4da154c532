import { SqliteDialect } from "kysely";
import type { SqliteDatabase as KyselySqliteDatabase, SqliteStatement as KyselySqliteStatement } from "kysely";
import type { SqliteDatabase, SqliteValue } from "../storage/sqlite.js";

/**
 * Kysely's SQLite dialect over Node's built-in `node:sqlite`. The dialect expects a better-sqlite3-shaped
 * database; the only differences are that a node:sqlite statement does not say whether it returns rows
 * (it does when it has result columns) and binds parameters as arguments rather than one array.
 */
export function createNodeSqliteDialect(db: SqliteDatabase): SqliteDialect {
  const database: KyselySqliteDatabase = {
    close: () => db.close(),
    prepare(sql: string): KyselySqliteStatement {
      const statement = db.prepare(sql);
      const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteValue);
      return {
        reader: returnsRows(statement, sql),
        all: (parameters) => statement.all(...bind(parameters)),
        run: (parameters) => statement.run(...bind(parameters)),
        iterate: (parameters) => statement.iterate(...bind(parameters)),
      };
    },
  };
  return new SqliteDialect({ database });
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
