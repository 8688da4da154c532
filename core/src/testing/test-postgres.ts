import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { openDatabase, type Database } from "../db/database.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The PostgreSQL server of the run (server/src/testing/postgres-global-setup.ts), when it started one. */
    lpTestPostgresUrl?: string;
  }
}

/**
 * A fresh lp database on the run's PostgreSQL server: a schema of its own in the server's `postgres`
 * database (the connection's `search_path`), migrated, and how to drop it afterwards. A schema costs a
 * fraction of a `CREATE DATABASE`, and the API suites make hundreds. The server is the one the global setup
 * started (`LP_TEST_STORAGE=postgres`), or `LP_TEST_POSTGRES_URL`.
 */
export async function testPostgresDatabase(): Promise<{ database: Database; remove(): Promise<void> }> {
  const url = process.env.LP_TEST_POSTGRES_URL || inject("lpTestPostgresUrl");
  if (!url) throw new Error("LP_TEST_STORAGE=postgres needs the run's PostgreSQL server: run the `postgres` project, or set LP_TEST_STORAGE=postgres for the whole vitest run (its global setup starts one)");
  const schema = `app_${process.pid}_${randomBytes(5).toString("hex")}`;
  const admin = await openDatabase({ kind: "postgres", url, maxConnections: 1 }, { migrate: false });
  try {
    await admin.db.schema.createSchema(schema).execute();
  } finally {
    await admin.close();
  }
  const scoped = new URL(url);
  scoped.searchParams.set("options", `-c search_path=${schema}`);
  const database = await openDatabase({ kind: "postgres", url: scoped.href, maxConnections: 4 });
  return {
    database,
    async remove() {
      const cleaner = await openDatabase({ kind: "postgres", url, maxConnections: 1 }, { migrate: false });
      try {
        await cleaner.db.schema.dropSchema(schema).ifExists().cascade().execute();
      } finally {
        await cleaner.close();
      }
    },
  };
}
