import { expect, it } from "vitest";
import { openDatabase, type Database } from "../db/database.js";
import { clearTables } from "../db/table-copy.js";
import { createManualClock, cryptoIds } from "../deps.js";
import { describeDatabases } from "../testing/databases.js";
import { ensureAdminKey } from "./dev-credentials.js";
import { AdminKeyMismatchError, ensureSharedAdminKey, toAdminKeyFingerprint } from "./shared-admin-key.js";

const clock = createManualClock("2026-03-01T10:00:00.000Z");

describeDatabases("the admin key shared by the processes of one database", ({ kind, open, target }) => {
  /** Handles on one database, as processes would hold (one handle on SQLite, whose data dir one process owns). */
  async function processes(n: number, opened: Database[]): Promise<Database[]> {
    if (kind !== "postgres") {
      const database = await open();
      return Array.from({ length: n }, () => database);
    }
    const where = await target();
    while (opened.length < n) opened.push(await openDatabase(where));
    return opened;
  }

  it("stores the first process's key; others with the same key or none get it; a different key is refused by fingerprint", async () => {
    const opened: Database[] = [];
    try {
      const [a, b, c, d] = await processes(4, opened);
      expect(await ensureSharedAdminKey(a!, clock, cryptoIds, "the-shared-admin-key-0123456789abcdef")).toBe("the-shared-admin-key-0123456789abcdef");
      expect(await ensureSharedAdminKey(b!, clock, cryptoIds, "the-shared-admin-key-0123456789abcdef")).toBe("the-shared-admin-key-0123456789abcdef");
      // No key: the stored one, which the single-process rule (ensureAdminKey) reads too.
      expect(await ensureSharedAdminKey(c!, clock, cryptoIds)).toBe("the-shared-admin-key-0123456789abcdef");
      expect(await ensureAdminKey(c!, clock, cryptoIds)).toBe("the-shared-admin-key-0123456789abcdef");
      const refused = await ensureSharedAdminKey(d!, clock, cryptoIds, "another-admin-key-0123456789abcdefgh").catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AdminKeyMismatchError);
      const message = (refused as Error).message;
      expect(message).toContain(`fingerprint ${toAdminKeyFingerprint("another-admin-key-0123456789abcdefgh")}`);
      expect(message).toContain(`fingerprint ${toAdminKeyFingerprint("the-shared-admin-key-0123456789abcdef")}`);
      expect(message).not.toContain("another-admin-key");
      expect(message).not.toContain("the-shared-admin-key");
      // A reset keeps the settings: the key stays the service's.
      await a!.transaction((tx) => clearTables(tx, { except: ["settings"] }));
      await expect(ensureSharedAdminKey(b!, clock, cryptoIds, "another-admin-key-0123456789abcdefgh")).rejects.toBeInstanceOf(AdminKeyMismatchError);
    } finally {
      await Promise.all(opened.map((h) => h.close()));
    }
  });

  it("makes processes starting together with different keys agree on one: exactly one key is served, the others refused", async () => {
    const opened: Database[] = [];
    try {
      const handles = await processes(4, opened);
      const outcomes = await Promise.allSettled(handles.map((database, i) => ensureSharedAdminKey(database, clock, cryptoIds, `racing-admin-key-${i}-0123456789abcdefgh`)));
      const served = outcomes.filter((o) => o.status === "fulfilled");
      expect(served).toHaveLength(1);
      for (const o of outcomes) if (o.status === "rejected") expect(o.reason).toBeInstanceOf(AdminKeyMismatchError);
      expect(await ensureSharedAdminKey(handles[0]!, clock, cryptoIds)).toBe((served[0] as PromiseFulfilledResult<string>).value);
    } finally {
      await Promise.all(opened.map((h) => h.close()));
    }
  });

  it("generates one key for processes started without one, and refuses a later explicit key", async () => {
    const opened: Database[] = [];
    try {
      const handles = await processes(3, opened);
      const keys = await Promise.all(handles.map((database) => ensureSharedAdminKey(database, clock, cryptoIds)));
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^lpadm_/);
      await expect(ensureSharedAdminKey(handles[1]!, clock, cryptoIds, "an-explicit-admin-key-0123456789abcdef")).rejects.toThrow(/is not the one this database keeps/);
      expect(toAdminKeyFingerprint(keys[0]!)).toMatch(/^[0-9a-f]{12}$/);
    } finally {
      await Promise.all(opened.map((h) => h.close()));
    }
  });
});
