import { statSync } from "node:fs";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { describeDatabases } from "../testing/databases.js";
import { afterCommit, openDatabase } from "./database.js";
import { isForeignKeyViolation, isUniqueViolation } from "./errors.js";
import { MIGRATION_TABLE } from "./migrate.js";

const at = "2026-03-01T10:00:00.000Z";
const account = (account_id: string) => ({ account_id, environment: "production" as const, currency: "USD", page_quota: 100, product_quota: 10_000, media_quota_bytes: 1024, created_at: at, updated_at: at });

describeDatabases("the database", ({ kind, open, target }) => {
  it("creates the schema on first open and opens it again without migrating twice", async () => {
    const where = await target();
    const first = await openDatabase(where);
    await first.db.insertInto("accounts").values(account("acct_1")).execute();
    const ran = await first.db.selectFrom(MIGRATION_TABLE as "accounts").selectAll().execute();
    await first.close();
    if (kind === "memory") return;
    const again = await openDatabase(where);
    expect(await again.db.selectFrom(MIGRATION_TABLE as "accounts").selectAll().execute()).toEqual(ran);
    expect(await again.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_1" }]);
    await again.close();
  });

  it("answers numbers and JSON text alike on both engines", async () => {
    const { db } = await open();
    await db.insertInto("accounts").values({ ...account("acct_1"), media_quota_bytes: 2 ** 40 }).execute();
    await db.insertInto("tokens").values({ token_hash: "h", account_id: "acct_1", scopes: JSON.stringify(["pages:read"]), expires_at: null, created_at: at }).execute();
    // A document comes back as written: its keys in their order (PostgreSQL's jsonb would sort them).
    await db.insertInto("tokens").values({ token_hash: "h2", account_id: "acct_1", scopes: '{"zeta":1,"alpha":{"b":2,"a":1}}', expires_at: null, created_at: at }).execute();
    expect(await db.selectFrom("tokens").select("scopes").where("token_hash", "=", "h2").executeTakeFirstOrThrow()).toEqual({ scopes: '{"zeta":1,"alpha":{"b":2,"a":1}}' });
    expect(await db.selectFrom("accounts").select(["page_quota", "media_quota_bytes"]).executeTakeFirstOrThrow()).toEqual({ page_quota: 100, media_quota_bytes: 2 ** 40 });
    expect(await db.selectFrom("tokens").select("scopes").where("token_hash", "=", "h").executeTakeFirstOrThrow()).toEqual({ scopes: '["pages:read"]' });
  });

  it("commits a transaction whole or not at all", async () => {
    const database = await open();
    await expect(
      database.transaction(async (tx) => {
        await tx.insertInto("accounts").values(account("acct_1")).execute();
        await tx.insertInto("accounts").values(account("acct_1")).execute();
      }),
    ).rejects.toSatisfy(isUniqueViolation);
    expect(await database.db.selectFrom("accounts").selectAll().execute()).toEqual([]);
    await database.transaction(async (tx) => {
      await tx.insertInto("accounts").values(account("acct_2")).execute();
    });
    expect(await database.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_2" }]);
  });

  it("calls what waits on a commit once the rows are visible outside it, and never after a rollback", async () => {
    const database = await open();
    const seen: string[][] = [];
    const looks: Promise<unknown>[] = [];
    // What a callback sees, read outside the transaction (on PostgreSQL another connection of the pool).
    const look = () => void looks.push(database.db.selectFrom("accounts").select("account_id").execute().then((rows) => seen.push(rows.map((r) => r.account_id))));
    await database.transaction(async (tx) => {
      await tx.insertInto("accounts").values(account("acct_1")).execute();
      afterCommit(tx, look);
      expect(seen).toEqual([]);
    });
    await expect(
      database.transaction(async (tx) => {
        afterCommit(tx, look);
        await tx.insertInto("accounts").values(account("acct_1")).execute();
      }),
    ).rejects.toSatisfy(isUniqueViolation);
    await Promise.all(looks);
    expect(seen).toEqual([["acct_1"]]);
    // Outside a transaction there is nothing to wait for.
    afterCommit(database.db, () => seen.push(["now"]));
    expect(seen).toEqual([["acct_1"], ["now"]]);
  });

  it("keeps its foreign keys", async () => {
    const { db } = await open();
    const error = await db.insertInto("tokens").values({ token_hash: "h", account_id: "nobody", scopes: "[]", expires_at: null, created_at: at }).execute().catch((e: unknown) => e);
    expect(isForeignKeyViolation(error)).toBe(true);
    expect(isUniqueViolation(error)).toBe(false);
  });

  it("names a unique violation's index", async () => {
    const { db } = await open();
    await db.insertInto("accounts").values(account("acct_1")).execute();
    const error = await db.insertInto("accounts").values(account("acct_1")).execute().catch((e: unknown) => e);
    expect(isUniqueViolation(error, { index: "accounts_pkey", columns: "accounts.account_id" })).toBe(true);
    expect(isUniqueViolation(error, { index: "other", columns: "accounts.other" })).toBe(false);
  });

  it("runs transactions side by side without losing one", async () => {
    const database = await open();
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    // Read, then write what was read plus one: under a row lock on PostgreSQL, one at a time on SQLite.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        database.transaction(async (tx) => {
          let q = tx.selectFrom("accounts").select("page_quota").where("account_id", "=", "acct_1");
          if (database.dialect === "postgres") q = q.forUpdate();
          const { page_quota } = await q.executeTakeFirstOrThrow();
          await tx.updateTable("accounts").set({ page_quota: page_quota + 1 }).where("account_id", "=", "acct_1").execute();
        }),
      ),
    );
    expect(await database.db.selectFrom("accounts").select("page_quota").executeTakeFirstOrThrow()).toEqual({ page_quota: 120 });
  });

  it("refuses a database a newer lp migrated, and changes nothing in it", async () => {
    const where = await target();
    if (where.kind === "memory") return;
    const first = await openDatabase(where);
    await sql`insert into ${sql.table(MIGRATION_TABLE)} (name, timestamp) values ('9999-from-the-future', '2030-01-01T00:00:00.000Z')`.execute(first.db);
    await first.close();
    await expect(openDatabase(where)).rejects.toThrow(/newer lp .*9999-from-the-future.*upgrade lp/);
  });
});

describe("the SQLite file", () => {
  it("is readable by its owner alone", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "lp-db-mode-"));
    const file = join(dir, "lp.db");
    const db = await openDatabase({ kind: "sqlite", file });
    await db.db.insertInto("accounts").values(account("acct_1")).execute();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
