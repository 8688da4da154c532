import { expect, it } from "vitest";
import type { Database } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { createUnreadableRows } from "../db/unreadable-rows.js";
import { describeDatabases } from "../testing/databases.js";
import type { StoredResponse } from "./idempotency.js";
import { createIdempotencyRepository, type IdempotencyClaim } from "./idempotency-repository.js";

const t0 = "2026-03-01T10:00:00.000Z";
const t0plus1m = "2026-03-01T10:01:00.000Z";
const t0plus2m = "2026-03-01T10:02:00.000Z";
const t0plus1d = "2026-03-02T10:00:00.000Z";
const t0plus2d = "2026-03-03T10:00:00.000Z";

const response: StoredResponse = { status: 201, headers: { "content-type": "application/json", "x-request-id": "req_1" }, body: '{"data":{"id":"prod_1"}}' };

/** A claim of key `k1` of acct_1 at `now`, its claim lapsing a minute later and the record a day later. */
const claimAt = (owner: string, now = t0, changes: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
  account_id: "acct_1",
  key: "k1",
  fingerprint: "fp-a",
  owner,
  now,
  claimUntil: new Date(Date.parse(now) + 60_000).toISOString(),
  expiresAt: new Date(Date.parse(now) + 86_400_000).toISOString(),
  ...changes,
});
const ref = { account_id: "acct_1", key: "k1" };

async function withAccounts(database: Database, ...ids: string[]) {
  for (const account_id of ids) {
    await database.db
      .insertInto("accounts")
      .values({ account_id, environment: "production", currency: "USD", page_quota: 100, product_quota: 10_000, media_quota_bytes: 1024, created_at: t0, updated_at: t0 })
      .execute();
  }
  return database;
}

describeDatabases("the Idempotency-Key repository", ({ kind, open }) => {
  const setUp = async () => {
    const database = await withAccounts(await open(), "acct_1", "acct_2");
    return { database, keys: createIdempotencyRepository(database) };
  };

  it("reads a record whose stored headers are of another shape as UnreadableRowError naming the key as sent, the row in the log once", async () => {
    const lines: string[] = [];
    const database = await withAccounts(await open(), "acct_1");
    const keys = createIdempotencyRepository(database, createUnreadableRows({ where: "the test database", log: (line) => lines.push(line) }));
    expect(await keys.claim(claimAt("p1"))).toEqual({ owned: true });
    expect(await keys.complete({ ...ref, owner: "p1", response, expiresAt: t0plus1d })).toBe(true);
    await database.db.updateTable("idempotency_keys").set({ response_headers: '["content-type"]' }).execute();
    for (let i = 0; i < 2; i++) {
      await expect(keys.claim(claimAt("p2", t0, { sent: "order-1" }))).rejects.toMatchObject({
        code: "record_unreadable",
        details: { resource: "idempotency key", id: "order-1" },
        problem: "response_headers is not headers",
      });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^storage: unreadable row idempotency_keys\/acct_1\/k1 in the test database: response_headers is not headers; /);
  });

  it("claims a new key and stores its record, claimed and unanswered", async () => {
    const { keys } = await setUp();
    expect(await keys.claim(claimAt("p1"))).toEqual({ owned: true });
    expect(await keys.read(ref)).toEqual({
      ...ref,
      fingerprint: "fp-a",
      response: null,
      claimed_by: "p1",
      claim_expires_at: t0plus1m,
      changed_at: null,
      created_at: t0,
      expires_at: t0plus1d,
    });
    expect(await keys.read({ account_id: "acct_1", key: "k2" })).toBeNull();
  });

  it("answers a claimed key's record to a second claim and changes nothing", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1"));
    const second = await keys.claim(claimAt("p2", "2026-03-01T10:00:30.000Z", { fingerprint: "fp-b" }));
    expect(second).toMatchObject({ owned: false, entry: { fingerprint: "fp-a", response: null, claimed_by: "p1" } });
    expect(await keys.read(ref)).toMatchObject({ fingerprint: "fp-a", claimed_by: "p1", claim_expires_at: t0plus1m, created_at: t0 });
  });

  it("stores the owner's answer, which later claims are given to replay", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1"));
    expect(await keys.complete({ ...ref, owner: "p1", response, expiresAt: "2026-03-02T10:00:05.000Z" })).toBe(true);
    const entry = await keys.read(ref);
    expect(entry).toMatchObject({ response, claimed_by: null, claim_expires_at: null, expires_at: "2026-03-02T10:00:05.000Z" });
    // Long after the claim would have lapsed, the answer is still replayed, to the same or another request.
    expect(await keys.claim(claimAt("p2", t0plus2m))).toEqual({ owned: false, entry });
    expect(await keys.claim(claimAt("p3", t0plus2m, { fingerprint: "fp-b" }))).toEqual({ owned: false, entry });
  });

  it("refuses an answer from anyone but the claim's owner", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1"));
    expect(await keys.complete({ ...ref, owner: "p2", response, expiresAt: t0plus1d })).toBe(false);
    expect(await keys.complete({ account_id: "acct_1", key: "k2", owner: "p1", response, expiresAt: t0plus1d })).toBe(false);
    expect(await keys.read(ref)).toMatchObject({ response: null, claimed_by: "p1" });
  });

  it("lets another take over a claim that lapsed with no change made; the first owner can no longer answer", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1"));
    // At the lapse exactly the claim is over.
    expect(await keys.claim(claimAt("p2", t0plus1m, { fingerprint: "fp-b" }))).toEqual({ owned: true });
    expect(await keys.read(ref)).toMatchObject({ fingerprint: "fp-b", claimed_by: "p2", claim_expires_at: t0plus2m, created_at: t0plus1m });
    expect(await keys.markChanged({ ...ref, owner: "p1", at: t0plus1m })).toBe(false);
    expect(await keys.complete({ ...ref, owner: "p1", response, expiresAt: t0plus1d })).toBe(false);
    expect(await keys.release({ ...ref, owner: "p1" })).toBe(false);
    expect(await keys.complete({ ...ref, owner: "p2", response, expiresAt: t0plus1d })).toBe(true);
    expect((await keys.read(ref))?.response).toEqual(response);
  });

  it("ends every running claim at a time: unchanged keys are taken over then, changed ones never", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1", t0, { key: "unchanged" }));
    await keys.claim(claimAt("p1", t0, { key: "changed" }));
    await keys.markChanged({ account_id: "acct_1", key: "changed", owner: "p1", at: t0 });
    await keys.claim(claimAt("p1", t0, { key: "answered" }));
    await keys.complete({ account_id: "acct_1", key: "answered", owner: "p1", response, expiresAt: t0plus1d });
    // Before, at the same time, a second claim is given the records.
    expect(await keys.claim(claimAt("p2", t0, { key: "unchanged" }))).toMatchObject({ owned: false });
    expect(await keys.lapseClaims(t0)).toBe(2);
    expect(await keys.lapseClaims(t0)).toBe(0);
    expect(await keys.claim(claimAt("p2", t0, { key: "unchanged" }))).toEqual({ owned: true });
    expect(await keys.claim(claimAt("p2", t0, { key: "changed" }))).toMatchObject({ owned: false, entry: { changed_at: t0, claim_expires_at: t0, response: null } });
    expect(await keys.claim(claimAt("p2", t0, { key: "answered" }))).toMatchObject({ owned: false, entry: { response } });
  });

  it("never lets a claim be taken over once its change is made, though the claim lapsed", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1"));
    expect(await keys.markChanged({ ...ref, owner: "p1", at: "2026-03-01T10:00:01.000Z" })).toBe(true);
    const later = await keys.claim(claimAt("p2", t0plus2m));
    expect(later).toMatchObject({ owned: false, entry: { response: null, changed_at: "2026-03-01T10:00:01.000Z", claimed_by: "p1" } });
    // Nor released: the request must not run again.
    expect(await keys.release({ ...ref, owner: "p1" })).toBe(false);
    expect(await keys.read(ref)).not.toBeNull();
    // Its owner may still store the answer.
    expect(await keys.complete({ ...ref, owner: "p1", response, expiresAt: t0plus1d })).toBe(true);
  });

  it("commits the change's mark and answer with the caller's transaction, or neither", async () => {
    const { database, keys } = await setUp();
    await keys.claim(claimAt("p1"));
    await expect(
      database.transaction(async (tx) => {
        expect(await keys.markChanged({ ...ref, owner: "p1", at: t0 }, tx)).toBe(true);
        expect(await keys.complete({ ...ref, owner: "p1", response, expiresAt: t0plus1d }, tx)).toBe(true);
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await keys.read(ref)).toMatchObject({ response: null, changed_at: null, claimed_by: "p1" });
    await database.transaction(async (tx) => {
      await tx.updateTable("accounts").set({ page_quota: 7 }).where("account_id", "=", "acct_1").execute();
      expect(await keys.markChanged({ ...ref, owner: "p1", at: t0 }, tx)).toBe(true);
      expect(await keys.complete({ ...ref, owner: "p1", response, expiresAt: t0plus1d }, tx)).toBe(true);
    });
    expect(await keys.read(ref)).toMatchObject({ response, changed_at: t0 });
    expect(await database.db.selectFrom("accounts").select("page_quota").where("account_id", "=", "acct_1").executeTakeFirstOrThrow()).toEqual({ page_quota: 7 });
  });

  it("claims inside a caller's transaction: rolled back, the key is free again", async () => {
    const { database, keys } = await setUp();
    await expect(
      database.transaction(async (tx) => {
        expect(await keys.claim(claimAt("p1"), tx)).toEqual({ owned: true });
        expect((await keys.read(ref, tx))?.claimed_by).toBe("p1");
        throw new Error("abandoned");
      }),
    ).rejects.toThrow("abandoned");
    expect(await keys.read(ref)).toBeNull();
    expect(await keys.claim(claimAt("p2"))).toEqual({ owned: true });
  });

  it("releases an unanswered claim of its owner only, so the key can be sent again at once", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1"));
    expect(await keys.release({ ...ref, owner: "p2" })).toBe(false);
    expect(await keys.release({ ...ref, owner: "p1" })).toBe(true);
    expect(await keys.read(ref)).toBeNull();
    expect(await keys.claim(claimAt("p2", t0, { fingerprint: "fp-b" }))).toEqual({ owned: true });
    await keys.complete({ ...ref, owner: "p2", response, expiresAt: t0plus1d });
    // An answered key is kept.
    expect(await keys.release({ ...ref, owner: "p2" })).toBe(false);
    expect((await keys.read(ref))?.response).toEqual(response);
  });

  it("treats an expired record as absent: a claim at its expiry takes the key anew", async () => {
    const { keys } = await setUp();
    await keys.claim(claimAt("p1"));
    await keys.complete({ ...ref, owner: "p1", response, expiresAt: t0plus1d });
    expect(await keys.claim(claimAt("p2", "2026-03-02T09:59:59.999Z"))).toMatchObject({ owned: false, entry: { response } });
    expect(await keys.claim(claimAt("p2", t0plus1d, { fingerprint: "fp-b" }))).toEqual({ owned: true });
    expect(await keys.read(ref)).toMatchObject({ fingerprint: "fp-b", response: null, claimed_by: "p2", created_at: t0plus1d, expires_at: t0plus2d });
  });

  it("keeps keys apart by account and by key", async () => {
    const { keys } = await setUp();
    expect(await keys.claim(claimAt("p1"))).toEqual({ owned: true });
    expect(await keys.claim(claimAt("p2", t0, { account_id: "acct_2" }))).toEqual({ owned: true });
    expect(await keys.claim(claimAt("p3", t0, { key: "k2" }))).toEqual({ owned: true });
    expect((await keys.read({ account_id: "acct_2", key: "k1" }))?.claimed_by).toBe("p2");
    expect((await keys.read({ account_id: "acct_1", key: "k2" }))?.claimed_by).toBe("p3");
    expect((await keys.read(ref))?.claimed_by).toBe("p1");
  });

  it("refuses a key of an unknown account by its foreign key", async () => {
    const { keys } = await setUp();
    const error = await keys.claim(claimAt("p1", t0, { account_id: "nobody" })).catch((e: unknown) => e);
    expect(isForeignKeyViolation(error)).toBe(true);
    expect(await keys.read({ account_id: "nobody", key: "k1" })).toBeNull();
  });

  it("deletes the records expired at a time, and answers how many", async () => {
    const { database, keys } = await setUp();
    await keys.claim(claimAt("p1", t0, { key: "old-answered" }));
    await keys.complete({ account_id: "acct_1", key: "old-answered", owner: "p1", response, expiresAt: t0plus1d });
    await keys.claim(claimAt("p1", t0, { key: "old-claimed" }));
    await keys.claim(claimAt("p1", "2026-03-01T12:00:00.000Z", { key: "young" }));
    expect(await keys.deleteExpired("2026-03-02T09:59:59.999Z")).toBe(0);
    expect(await keys.deleteExpired(t0plus1d)).toBe(2);
    const left = await database.db.selectFrom("idempotency_keys").select("key").execute();
    expect(left).toEqual([{ key: "young" }]);
    expect(await keys.deleteExpired(t0plus1d)).toBe(0);
  });

  it("lets exactly one of many concurrent transactions claiming one key own it; the others are given its answer", async () => {
    const { database, keys } = await setUp();
    // Each transaction claims and, when it owns the key, answers it before committing. On PostgreSQL they run
    // side by side on the pool's connections, so the losers' claims wait on the winner's uncommitted row.
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        database.transaction(async (tx) => {
          const outcome = await keys.claim(claimAt(`p${i}`), tx);
          if (outcome.owned) expect(await keys.complete({ ...ref, owner: `p${i}`, response: { ...response, body: `answer of p${i}` }, expiresAt: t0plus1d }, tx)).toBe(true);
          return { owner: `p${i}`, outcome };
        }),
      ),
    );
    const winners = outcomes.filter((o) => o.outcome.owned);
    expect(winners).toHaveLength(1);
    const stored = await keys.read(ref);
    expect(stored?.response?.body).toBe(`answer of ${winners[0]!.owner}`);
    for (const { outcome } of outcomes.filter((o) => !o.outcome.owned)) expect(outcome).toEqual({ owned: false, entry: stored });
  });

  // SQLite runs one transaction at a time: a second cannot begin while the first is open.
  it.skipIf(kind !== "postgres")("on PostgreSQL, lets one of two transactions holding their claims open own the key", async () => {
    const { database, keys } = await setUp();
    // The second claims while the first transaction, holding its claim, is still open: it waits on the
    // first's uncommitted row (or, should the first commit before its query arrives, finds it committed).
    let firstClaimed!: () => void;
    const claimedByFirst = new Promise<void>((resolve) => (firstClaimed = resolve));
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    const [first, second] = await Promise.all([
      database.transaction(async (tx) => {
        const outcome = await keys.claim(claimAt("p1"), tx);
        firstClaimed();
        await firstMayEnd;
        return outcome;
      }),
      database.transaction(async (tx) => {
        await claimedByFirst;
        const waiting = keys.claim(claimAt("p2"), tx);
        releaseFirst();
        return waiting;
      }),
    ]);
    expect([first.owned, second.owned]).toEqual([true, false]);
    expect(second).toMatchObject({ owned: false, entry: { claimed_by: "p1" } });
  });
});
