import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { expect } from "vitest";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { openSqlite } from "../../../core/src/storage/sqlite.js";
import { createTestApp, type TestApp } from "./test-app.js";

/**
 * A store a test app runs on, and how its rows are edited behind lp's back, for the suites of damaged rows
 * (`damaged-*.test.ts`). SQLite keeps any value in any column; PostgreSQL refuses text that is not JSON in a
 * JSON column and a value of another type, so those suites run on the two SQLite stores.
 */
export interface DamagedStore {
  /** Opens the app (again, on the same data); its log lines and background failures go into `lines`. */
  open(lines: string[]): Promise<TestApp>;
  /**
   * Runs each of `updates` on the database as `sqlite3` would (each must change one row at least), the app
   * stopped and opened again when the store outlives it; answers the app to go on with and its new `lines`.
   */
  edit(app: TestApp, ...updates: string[]): Promise<{ app: TestApp; lines: string[] }>;
  /** Where the log line says the row is. */
  where: string;
  dispose(): void;
}

/** Every line the core logs, and every failure of its background work, as text. */
function capture(lines: string[]) {
  return {
    log: (line: string) => lines.push(line),
    onBackgroundError: (name: string, error: unknown) => lines.push(`background ${name} failed: ${String(error)}`),
    webhooks: { onError: (what: string, error: unknown) => lines.push(`webhooks: ${what} failed: ${String(error)}`) },
  };
}

function sqliteStore(): DamagedStore {
  const dir = mkdtempSync(join(tmpdir(), "lp-damaged-"));
  const file = join(dir, "lp.db");
  const open = (lines: string[]) => createTestApp({ dataDir: dir, coreDeps: capture(lines) });
  return {
    open,
    // With the server stopped, as `sqlite3 lp.db "UPDATE ..."` would; then a start on the edited file.
    async edit(app, ...updates) {
      await app.close();
      const db = openSqlite(file);
      try {
        for (const update of updates) expect(Number(db.prepare(update).run().changes)).toBeGreaterThan(0);
      } finally {
        db.close();
      }
      const lines: string[] = [];
      return { app: await open(lines), lines };
    },
    where: file,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function memoryStore(): DamagedStore {
  let lines: string[] = [];
  return {
    open: (into) => createTestApp({ storage: "memory", coreDeps: capture((lines = into)) }),
    // A database in memory lives only with its app: edited through its own connection, as a hand would.
    async edit(app, ...updates) {
      for (const update of updates) expect(Number((await sql.raw(update).execute(app.core.database.db)).numAffectedRows)).toBeGreaterThan(0);
      lines.length = 0;
      return { app, lines };
    },
    where: "memory storage",
    dispose: () => {},
  };
}

/** The stores the damaged-row suites run on, by name. */
export const DAMAGED_STORES = { sqlite: sqliteStore, memory: memoryStore };

/** The one line a damaged row is named by in the log. */
export const unreadableLine = (store: DamagedStore, row: string, problem: string) =>
  `storage: unreadable row ${row} in ${store.where}: ${problem}; its reads answer 500 record_unreadable and lists leave it out until the row is repaired`;

/** The first column of the first row `select` finds, read through the app's own connection. */
export async function selectValue(app: TestApp, select: string): Promise<unknown> {
  const { rows } = await sql.raw<Record<string, unknown>>(select).execute(app.core.database.db);
  return rows[0] ? Object.values(rows[0])[0] : undefined;
}
