import { expect, it } from "vitest";
import { openDatabase, type Database } from "../db/database.js";
import { clearTables } from "../db/table-copy.js";
import { createManualClock, cryptoIds } from "../deps.js";
import { describeDatabases } from "../testing/databases.js";
import { createAccountsService } from "./accounts-service.js";
import { ensureAdminKey, ensureDevCredentials } from "./dev-credentials.js";

const clock = createManualClock("2026-03-01T10:00:00.000Z");

describeDatabases("the dev credentials and the admin key", ({ kind, open, target }) => {
  /**
   * Handles on one database, as processes starting together would hold: on PostgreSQL separate pools; on
   * SQLite one process owns the database (the data dir is locked), so its callers race on one handle.
   */
  async function processes(n: number): Promise<Database[]> {
    if (kind !== "postgres") {
      const database = await open();
      return Array.from({ length: n }, () => database);
    }
    const where = await target();
    // One after another: the first migrates, the others find the schema in place.
    const handles: Database[] = [];
    while (handles.length < n) handles.push(await openDatabase(where));
    opened.push(...handles);
    return handles;
  }
  const opened: Database[] = [];

  it("keeps the same dev credentials, and puts their rows back once a reset removed them", async () => {
    const database = await open();
    const accounts = createAccountsService({ database, clock, ids: cryptoIds });
    const first = await ensureDevCredentials(database, clock, cryptoIds);
    expect(first).toMatchObject({ account_id: "acct_dev", token: expect.stringMatching(/^lp_/), application_id: expect.stringMatching(/^app_[0-9a-f]{24}$/), client_secret: expect.stringMatching(/^lpsk_/) });
    expect(await ensureDevCredentials(database, clock, cryptoIds)).toEqual(first);
    await database.transaction((tx) => clearTables(tx, { except: ["settings"] }));
    await expect(accounts.authenticateToken(first.token)).rejects.toMatchObject({ code: "unauthenticated" });
    expect(await ensureDevCredentials(database, clock, cryptoIds)).toEqual(first);
    expect((await accounts.authenticateToken(first.token)).scopes).toHaveLength(5);
    expect(await accounts.authenticateApp(first.application_id, first.client_secret)).toMatchObject({ account_ids: [first.account_id] });
    expect(await accounts.require(first.account_id)).toMatchObject({ page_quota: 100, product_quota: 10_000 });
  });

  it("makes one set of credentials for processes starting at once, whose rows exist once", async () => {
    try {
      const handles = await processes(4);
      const all = await Promise.all(handles.map((database) => ensureDevCredentials(database, clock, cryptoIds)));
      for (const creds of all) expect(creds).toEqual(all[0]);
      const db = handles[0]!.db;
      expect(await db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_dev" }]);
      expect(await db.selectFrom("tokens").select("account_id").execute()).toEqual([{ account_id: "acct_dev" }]);
      expect(await db.selectFrom("application_accounts").select(["application_id", "account_id"]).execute()).toEqual([{ application_id: all[0]!.application_id, account_id: "acct_dev" }]);
    } finally {
      await Promise.all(opened.splice(0).map((h) => h.close()));
    }
  });

  it("keeps the generated admin key, the same for every process; an explicit key wins without replacing it", async () => {
    try {
      const handles = await processes(4);
      const keys = await Promise.all(handles.map((database) => ensureAdminKey(database, clock, cryptoIds)));
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^lpadm_[A-Za-z0-9_-]{32}$/);
      expect(await ensureAdminKey(handles[1]!, clock, cryptoIds, "explicit-key")).toBe("explicit-key");
      await handles[0]!.transaction((tx) => clearTables(tx, { except: ["settings"] }));
      expect(await ensureAdminKey(handles[2]!, clock, cryptoIds)).toBe(keys[0]);
    } finally {
      await Promise.all(opened.splice(0).map((h) => h.close()));
    }
  });
});
