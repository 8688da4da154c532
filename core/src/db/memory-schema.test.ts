import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./database.js";
import { migrateToLatest } from "./migrate.js";

const schemaOf = async (database: Database) =>
  (await sql<{ type: string; name: string; sql: string | null }>`SELECT type, name, sql FROM sqlite_master ORDER BY type, name`.execute(database.db)).rows;
const migrationsOf = async (database: Database) => (await sql<{ name: string }>`SELECT name FROM lp_migrations ORDER BY name`.execute(database.db)).rows.map((r) => r.name);

describe("the schema of memory databases", () => {
  it("a later memory database has exactly the schema and migration rows the migrations gave the first", async () => {
    const first = await openDatabase({ kind: "memory" });
    const later = await openDatabase({ kind: "memory" });
    // Migrated by hand, on a database opened without them: what the migrations alone make.
    const migrated = await openDatabase({ kind: "memory" }, { migrate: false });
    await migrateToLatest(migrated.db, "sqlite");
    try {
      const expected = await schemaOf(migrated);
      expect(expected.filter((o) => o.type === "table").length).toBeGreaterThan(15);
      expect(await schemaOf(first)).toEqual(expected);
      expect(await schemaOf(later)).toEqual(expected);
      expect(await migrationsOf(later)).toEqual(await migrationsOf(migrated));
      // The migrator finds nothing left to run on it, and its constraints hold.
      await migrateToLatest(later.db, "sqlite");
      expect(await migrationsOf(later)).toEqual(await migrationsOf(migrated));
      const foreignKeys = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(later.db);
      expect(foreignKeys.rows[0].foreign_keys).toBe(1);
      // The connection's pragmas are those of the first: a schema loaded as pages does not reset them.
      const synchronous = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(later.db);
      expect(synchronous.rows[0].synchronous).toBe((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(first.db)).rows[0].synchronous);
    } finally {
      for (const database of [first, later, migrated]) await database.close();
    }
  });

  it("memory databases share no rows", async () => {
    const at = "2026-03-01T10:00:00.000Z";
    const a = await openDatabase({ kind: "memory" });
    const b = await openDatabase({ kind: "memory" });
    try {
      await a.db.insertInto("accounts").values({ account_id: "acct_1", environment: "production", currency: "USD", page_quota: 1, product_quota: 1, media_quota_bytes: 1, created_at: at, updated_at: at }).execute();
      expect(await b.db.selectFrom("accounts").select("account_id").execute()).toEqual([]);
      expect(await a.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_1" }]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
