import type { QueryResult } from "kysely";
import type { Database, Dialect } from "../db/database.js";
import { changedRows, hookStatements, writtenTable, type Statement } from "../db/statement-hooks.js";

/** What the disk answers, as a {@link faultyDatabase} makes the engine say it. */
export type FaultErrno = "ENOSPC" | "EROFS" | "EACCES";

/** What a {@link faultyDatabase} refuses: every write (no `tables`), or only those to the tables named. */
export interface DatabaseFault {
  /** What the disk says (`ENOSPC`: full); the engine's own error for it is thrown. */
  errno: FaultErrno;
  /** Refuse only writes to these tables. */
  tables?: readonly string[];
}

/**
 * What each engine answers a write its disk refuses: node:sqlite's error (its `errcode`, the SQLite result
 * code; `SQLITE_FULL`, `SQLITE_READONLY`, and `SQLITE_CANTOPEN` when it may not create its journal in the
 * folder), pg's for PostgreSQL (its SQLSTATE; a full disk is 53100, and PostgreSQL names no other disk refusal
 * by a code of its own).
 */
const ENGINE_ERRORS: Record<Dialect, Partial<Record<FaultErrno, { message: string; fields: Record<string, unknown> }>>> = {
  sqlite: {
    ENOSPC: { message: "database or disk is full", fields: { code: "ERR_SQLITE_ERROR", errcode: 13, errstr: "database or disk is full" } },
    EROFS: { message: "attempt to write a readonly database", fields: { code: "ERR_SQLITE_ERROR", errcode: 8, errstr: "attempt to write a readonly database" } },
    EACCES: { message: "unable to open database file", fields: { code: "ERR_SQLITE_ERROR", errcode: 14, errstr: "unable to open database file" } },
  },
  postgres: {
    ENOSPC: { message: 'could not extend file "base/16384/16385": No space left on device', fields: { code: "53100", severity: "ERROR" } },
  },
};

/**
 * `database` with a switch that makes its writes fail as its engine fails them when the disk refuses: the
 * engine's own error (node:sqlite's `errcode`, PostgreSQL's SQLSTATE), so what handles it is what handles
 * a real one. As on a real full disk, a write fails only when it changes something (an upsert that finds
 * its row and changes nothing goes through: a replayed Idempotency-Key is answered), and reads always go
 * through. A write inside a transaction fails after it ran, and the transaction is rolled back by its
 * caller; one outside a transaction runs inside one of its own, rolled back. `refused` counts the writes
 * turned away. The hook sits on the database itself: hand `database` on as it is.
 */
export function faultyDatabase(database: Database) {
  let fault: DatabaseFault | null = null;
  const state = { refused: 0 };
  const refusal = (): Error => {
    const shape = ENGINE_ERRORS[database.dialect][fault!.errno]!;
    state.refused++;
    return Object.assign(new Error(shape.message), shape.fields);
  };
  const applies = (statement: Statement) => statement.kind === "write" && fault !== null && (!fault.tables || fault.tables.includes(writtenTable(statement) ?? ""));

  const remove = hookStatements(database, async (statement, run) => {
    if (!applies(statement)) return run();
    if (statement.inTransaction) {
      const result = await run();
      if (changedRows(statement.query, result)) throw refusal();
      return result;
    }
    // A change made outside a transaction would be committed by then: it runs in one of its own, always
    // undone (one that changed nothing is answered as it was).
    await statement.control("begin");
    let result: QueryResult<unknown>;
    try {
      result = await run();
    } finally {
      await statement.control("rollback");
    }
    if (changedRows(statement.query, result)) throw refusal();
    return result;
  });

  return {
    database,
    /** Writes refused so far. */
    state,
    /** From now on writes fail as `next` says (default: a full disk). */
    refuse(next: DatabaseFault = { errno: "ENOSPC" }): void {
      if (!ENGINE_ERRORS[database.dialect][next.errno]) throw new Error(`${database.dialect} names no fault of its own for ${next.errno}`);
      fault = next;
    },
    /** Writes go through again (room was made, the disk is writable again). */
    heal(): void {
      fault = null;
    },
    /** Takes the switch off the database. */
    remove,
  };
}

/** A {@link faultyDatabase}. */
export type FaultyDatabase = ReturnType<typeof faultyDatabase>;
