import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe } from "vitest";
import { openDatabase, type Database, type DatabaseTarget } from "../db/database.js";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "./postgres-server.js";

/** The engines a repository suite runs on. */
export type DatabaseKind = "sqlite" | "memory" | "postgres";

/** What a suite of {@link describeDatabases} is given. */
export interface DatabaseSuite {
  kind: DatabaseKind;
  /** A new, empty, migrated database, closed (and its file removed) after the test. */
  open(): Promise<Database>;
  /** Where a new empty database is, unopened (for tests of opening and migrating). */
  target(): Promise<DatabaseTarget>;
}

/**
 * Runs `suite` three times: on an SQLite file, on SQLite `:memory:` and on PostgreSQL (one server started
 * for the file, a new database per `open`). Without PostgreSQL the third skips with a message naming the
 * package, unless `LP_REQUIRE_POSTGRES` is set (postgres-server.ts then fails the run).
 */
export function describeDatabases(name: string, suite: (s: DatabaseSuite) => void): void {
  for (const kind of ["sqlite", "memory", "postgres"] as const) {
    if (kind === "postgres" && !postgresAvailable) {
      console.warn(postgresSkipReason(`${name} on PostgreSQL`));
      describe.skip(`${name} (postgres)`, () => suite(unavailable(kind)));
      continue;
    }
    describe(`${name} (${kind})`, () => {
      let server: PostgresServer | null = null;
      let dir = "";
      let n = 0;
      const opened: Database[] = [];
      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), "lp-db-"));
        // Nothing here kills the server: it need not sync, and creates each test's database faster.
        if (kind === "postgres") server = await startPostgresServer({ fsync: false });
      });
      afterEach(async () => {
        await Promise.all(opened.splice(0).map((db) => db.close().catch(() => {})));
      });
      afterAll(async () => {
        await server?.dispose();
        rmSync(dir, { recursive: true, force: true });
      });
      const target = async (): Promise<DatabaseTarget> => {
        if (kind === "memory") return { kind: "memory" };
        if (kind === "sqlite") return { kind: "sqlite", file: join(dir, `lp-${++n}.db`) };
        return { kind: "postgres", url: await server!.createDatabase() };
      };
      suite({
        kind,
        target,
        async open() {
          const db = await openDatabase(await target());
          opened.push(db);
          return db;
        },
      });
    });
  }
}

function unavailable(kind: DatabaseKind): DatabaseSuite {
  const refuse = () => Promise.reject(new Error("PostgreSQL is not installed"));
  return { kind, open: refuse, target: refuse };
}
