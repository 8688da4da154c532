import { expect, it } from "vitest";
import { createManualClock } from "../deps.js";
import { openDatabase, type Database } from "../db/database.js";
import { describeDatabases } from "../testing/databases.js";
import { createAccountRepository } from "./account-repository.js";
import type { AccountRecord, AppRecord, TokenRecord } from "./schemas.js";

const at = "2026-03-01T10:00:00.000Z";
const account = (account_id: string, quotas: Partial<AccountRecord> = {}): AccountRecord => ({
  account_id,
  environment: "production",
  currency: "USD",
  page_quota: 100,
  product_quota: 10_000,
  media_quota_bytes: 500 * 1024 * 1024,
  created_at: at,
  ...quotas,
});
const token = (account_id: string, expires_at: string | null = null): TokenRecord => ({ account_id, scopes: ["pages:read", "products:write"], expires_at, created_at: at });
const app = (application_id: string, account_ids: string[]): AppRecord => ({ application_id, name: `app ${application_id}`, account_ids, secret_hash: `hash-of-${application_id}`, created_at: at });

describeDatabases("the account repository", ({ kind, open, target }) => {
  const repository = (database: Database) => createAccountRepository({ database, clock: createManualClock(at) });

  it("creates an account and reads it back; an unknown id is null", async () => {
    const accounts = repository(await open());
    const record = account("acct_1", { environment: "test", currency: "EUR", media_quota_bytes: 2 ** 40 });
    expect(await accounts.createAccount(record)).toEqual({ outcome: "created" });
    expect(await accounts.getAccount("acct_1")).toEqual(record);
    expect(await accounts.getAccount("acct_2")).toBeNull();
  });

  it("refuses a second account with a taken id and keeps the first", async () => {
    const accounts = repository(await open());
    await accounts.createAccount(account("acct_1", { currency: "USD" }));
    expect(await accounts.createAccount(account("acct_1", { currency: "EUR" }))).toEqual({ outcome: "exists" });
    expect((await accounts.getAccount("acct_1"))?.currency).toBe("USD");
  });

  it("creates an account inside a caller's transaction, which rolls it back with the rest", async () => {
    const database = await open();
    const accounts = repository(database);
    await expect(
      database.transaction(async (tx) => {
        expect(await accounts.createAccount(account("acct_1"), tx)).toEqual({ outcome: "created" });
        // A duplicate inside the transaction leaves it usable (ON CONFLICT, no error).
        expect(await accounts.createAccount(account("acct_1"), tx)).toEqual({ outcome: "exists" });
        expect(await accounts.getAccount("acct_1", tx)).not.toBeNull();
        throw new Error("abandoned");
      }),
    ).rejects.toThrow("abandoned");
    expect(await accounts.getAccount("acct_1")).toBeNull();
  });

  it("lists accounts in the order of their ids, up to the limit", async () => {
    const accounts = repository(await open());
    for (const id of ["acct_c", "acct_a", "acct_b"]) await accounts.createAccount(account(id));
    expect((await accounts.listAccounts(10)).map((a) => a.account_id)).toEqual(["acct_a", "acct_b", "acct_c"]);
    expect((await accounts.listAccounts(2)).map((a) => a.account_id)).toEqual(["acct_a", "acct_b"]);
  });

  it("answers an account's quotas, null for an unknown one", async () => {
    const accounts = repository(await open());
    await accounts.createAccount(account("acct_1", { page_quota: 3, product_quota: 7, media_quota_bytes: 2 ** 40 }));
    expect(await accounts.getQuotas("acct_1")).toEqual({ page_quota: 3, product_quota: 7, media_quota_bytes: 2 ** 40 });
    expect(await accounts.getQuotas("acct_2")).toBeNull();
  });

  it("holds the account's row for a transaction that reads its quotas with lock", async () => {
    const database = await open();
    const accounts = repository(database);
    await accounts.createAccount(account("acct_1", { page_quota: 0 }));
    // Read, then write what was read plus one: without the row held, concurrent PostgreSQL transactions lose writes.
    await Promise.all(
      Array.from({ length: 10 }, () =>
        database.transaction(async (tx) => {
          const quotas = await accounts.getQuotas("acct_1", tx, { lock: true });
          await tx.updateTable("accounts").set({ page_quota: quotas!.page_quota + 1 }).where("account_id", "=", "acct_1").execute();
        }),
      ),
    );
    expect((await accounts.getQuotas("acct_1"))?.page_quota).toBe(10);
  });

  it("keeps a token by its hash and finds it with its scopes", async () => {
    const accounts = repository(await open());
    await accounts.createAccount(account("acct_1"));
    expect(await accounts.createToken("hash-1", token("acct_1"))).toEqual({ outcome: "created" });
    expect(await accounts.findToken("hash-1", at)).toEqual({ ...token("acct_1"), expired: false });
    expect(await accounts.findToken("hash-2", at)).toBeNull();
  });

  it("says whether a token has expired at the time asked about", async () => {
    const accounts = repository(await open());
    await accounts.createAccount(account("acct_1"));
    await accounts.createToken("hash-1", token("acct_1", "2026-03-01T11:00:00.000Z"));
    expect((await accounts.findToken("hash-1", "2026-03-01T10:59:59.999Z"))?.expired).toBe(false);
    expect((await accounts.findToken("hash-1", "2026-03-01T11:00:00.000Z"))?.expired).toBe(true);
    expect(await accounts.findToken("hash-1", "2027-01-01T00:00:00.000Z")).toMatchObject({ account_id: "acct_1", expires_at: "2026-03-01T11:00:00.000Z", expired: true });
    await accounts.createToken("hash-2", token("acct_1", null));
    expect((await accounts.findToken("hash-2", "2099-01-01T00:00:00.000Z"))?.expired).toBe(false);
  });

  it("refuses a token of an unknown account by its foreign key, and a second token of one hash", async () => {
    const accounts = repository(await open());
    expect(await accounts.createToken("hash-1", token("nobody"))).toEqual({ outcome: "missing_account", account_id: "nobody" });
    expect(await accounts.findToken("hash-1", at)).toBeNull();
    await accounts.createAccount(account("acct_1"));
    await accounts.createAccount(account("acct_2"));
    await accounts.createToken("hash-1", token("acct_1"));
    expect(await accounts.createToken("hash-1", token("acct_2"))).toEqual({ outcome: "exists" });
    expect((await accounts.findToken("hash-1", at))?.account_id).toBe("acct_1");
  });

  it("registers an application with its accounts in the order given, duplicates dropped", async () => {
    const accounts = repository(await open());
    for (const id of ["acct_a", "acct_b", "acct_c"]) await accounts.createAccount(account(id));
    expect(await accounts.createApplication(app("app_1", ["acct_c", "acct_a", "acct_c", "acct_b"]))).toEqual({ outcome: "created" });
    expect(await accounts.getApplication("app_1")).toEqual(app("app_1", ["acct_c", "acct_a", "acct_b"]));
    expect(await accounts.createApplication(app("app_2", []))).toEqual({ outcome: "created" });
    expect(await accounts.getApplication("app_2")).toEqual(app("app_2", []));
    expect(await accounts.getApplication("app_3")).toBeNull();
  });

  it("refuses an application naming an unknown account, naming it, and writes nothing", async () => {
    const database = await open();
    const accounts = repository(database);
    await accounts.createAccount(account("acct_a"));
    expect(await accounts.createApplication(app("app_1", ["acct_a", "acct_x", "acct_y"]))).toEqual({ outcome: "missing_account", account_id: "acct_x" });
    expect(await accounts.getApplication("app_1")).toBeNull();
    expect(await database.db.selectFrom("application_accounts").selectAll().execute()).toEqual([]);
  });

  it("refuses a second application with a taken id and keeps the first whole", async () => {
    const accounts = repository(await open());
    await accounts.createAccount(account("acct_a"));
    await accounts.createAccount(account("acct_b"));
    await accounts.createApplication(app("app_1", ["acct_a"]));
    expect(await accounts.createApplication({ ...app("app_1", ["acct_b"]), name: "other" })).toEqual({ outcome: "exists" });
    expect(await accounts.getApplication("app_1")).toEqual(app("app_1", ["acct_a"]));
  });

  it("writes a token and an application in a caller's transaction, which rolls them back with the rest", async () => {
    const database = await open();
    const accounts = repository(database);
    await expect(
      database.transaction(async (tx) => {
        expect(await accounts.createAccount(account("acct_a"), tx)).toEqual({ outcome: "created" });
        expect(await accounts.createToken("hash-1", token("acct_a"), tx)).toEqual({ outcome: "created" });
        expect(await accounts.createApplication(app("app_1", ["acct_a"]), tx)).toEqual({ outcome: "created" });
        expect(await accounts.createApplication(app("app_1", ["acct_a"]), tx)).toEqual({ outcome: "exists" });
        expect(await accounts.getApplication("app_1", tx)).toEqual(app("app_1", ["acct_a"]));
        throw new Error("abandoned");
      }),
    ).rejects.toThrow("abandoned");
    expect(await accounts.findToken("hash-1", at)).toBeNull();
    expect(await accounts.getApplication("app_1")).toBeNull();
    // Committed, they stay.
    await database.transaction(async (tx) => {
      await accounts.createAccount(account("acct_a"), tx);
      await accounts.createToken("hash-1", token("acct_a"), tx);
      await accounts.createApplication(app("app_1", ["acct_a"]), tx);
    });
    expect(await accounts.findToken("hash-1", at)).toMatchObject({ account_id: "acct_a" });
    expect(await accounts.getApplication("app_1")).toEqual(app("app_1", ["acct_a"]));
  });

  it("lists applications in the order of their ids, each with its accounts", async () => {
    const accounts = repository(await open());
    await accounts.createAccount(account("acct_a"));
    await accounts.createAccount(account("acct_b"));
    await accounts.createApplication(app("app_b", ["acct_b", "acct_a"]));
    await accounts.createApplication(app("app_a", ["acct_a"]));
    await accounts.createApplication(app("app_c", []));
    expect(await accounts.listApplications(10)).toEqual([app("app_a", ["acct_a"]), app("app_b", ["acct_b", "acct_a"]), app("app_c", [])]);
    expect((await accounts.listApplications(1)).map((a) => a.application_id)).toEqual(["app_a"]);
  });

  it("creates a setting once, stamped by the clock, and answers it without creating again", async () => {
    const database = await open();
    const accounts = repository(database);
    let made = 0;
    const create = () => `secret-${++made}`;
    expect(await accounts.readOrCreateSetting("cursor_key", create)).toBe("secret-1");
    expect(await accounts.readOrCreateSetting("cursor_key", create)).toBe("secret-1");
    expect(made).toBe(1);
    expect(await accounts.readOrCreateSetting("builder_key", create)).toBe("secret-2");
    expect(await database.db.selectFrom("settings").selectAll().orderBy("name").execute()).toEqual([
      { name: "builder_key", value: "secret-2", created_at: at },
      { name: "cursor_key", value: "secret-1", created_at: at },
    ]);
  });

  it("agrees on one setting when several processes create it at once", async () => {
    // Separate connections to one database (pools on PostgreSQL, connections to one file on SQLite) stand for
    // processes starting together; `:memory:` has one process, whose callers race on its one connection.
    const where = await target();
    const handles = [kind === "memory" ? await open() : await openDatabase(where)];
    // Opened one after another: the first migrates, the others find the schema in place.
    while (kind !== "memory" && handles.length < 4) handles.push(await openDatabase(where));
    try {
      const repositories = Array.from({ length: 8 }, (_, i) => repository(handles[i % handles.length]!));
      const answers = await Promise.all(repositories.map((r, i) => r.readOrCreateSetting("cursor_key", () => `secret-${i}`)));
      expect(new Set(answers).size).toBe(1);
      const rows = await handles[0]!.db.selectFrom("settings").select("value").execute();
      expect(rows).toEqual([{ value: answers[0] }]);
    } finally {
      if (kind !== "memory") await Promise.all(handles.map((h) => h.close()));
    }
  });
});
