import { expect, it } from "vitest";
import type { Database, Tx } from "../db/database.js";
import { createManualClock, cryptoIds } from "../deps.js";
import { describeDatabases } from "../testing/databases.js";
import { createIdempotency, IDEMPOTENCY_EXECUTING_MS, IDEMPOTENCY_TTL_MS, type IdempotencyDecision, type StoredResponse } from "./idempotency.js";

const start = "2026-03-01T10:00:00.000Z";
const scope = { account_id: "acct_a", method: "POST", path: "/v1/accounts/acct_a/products", key: "k1" };
const ok: StoredResponse = { status: 201, headers: { "content-type": "application/json" }, body: "{\"data\":1}" };
const failed: StoredResponse = { status: 500, headers: { "content-type": "application/json" }, body: "{\"error\":{}}" };

const proceed = (d: IdempotencyDecision) => {
  if (d.kind !== "proceed") throw new Error(`expected proceed, got ${d.kind}`);
  return d;
};

/** A change as a service makes it: a row of its own and the key's mark, in one transaction. */
async function changeWith(database: Database, mark: (tx: Tx) => Promise<void>, name = "made"): Promise<void> {
  await database.transaction(async (tx) => {
    await tx.insertInto("settings").values({ name, value: "x", created_at: start }).execute();
    await mark(tx);
  });
}

describeDatabases("the idempotency service", ({ kind, open }) => {
  async function setup() {
    const database = await open();
    for (const account_id of ["acct_a", "acct_b"]) {
      await database.db.insertInto("accounts").values({ account_id, environment: "production", currency: "USD", page_quota: 1, product_quota: 1, media_quota_bytes: 1, created_at: start, updated_at: start }).execute();
    }
    const clock = createManualClock(start);
    const service = () => createIdempotency({ database, clock, owner: () => cryptoIds.uuid() });
    const count = async () => (await database.db.selectFrom("idempotency_keys").select("key").execute()).length;
    return { database, clock, idem: service(), service, count };
  }

  it("runs once, then replays the stored response", async () => {
    const { idem } = await setup();
    await proceed(await idem.begin(scope, "{}")).finish(ok, true);
    expect(await idem.begin(scope, "{}")).toEqual({ kind: "replay", response: ok });
  });

  it("frees the key of an answer not worth replaying, so it can be used again", async () => {
    const { idem, count } = await setup();
    await proceed(await idem.begin(scope, "bad")).finish(failed, false);
    await proceed(await idem.begin(scope, "bad")).finish(null, false);
    expect(await count()).toBe(0);
    await proceed(await idem.begin(scope, "good")).finish(ok, true);
    expect((await idem.begin(scope, "good")).kind).toBe("replay");
  });

  it("keeps any answer once the change was committed with the key's mark: the request never runs again", async () => {
    const { database, idem } = await setup();
    const running = proceed(await idem.begin(scope, "{}"));
    await changeWith(database, running.change);
    await running.finish(failed, false);
    expect(await idem.begin(scope, "{}")).toEqual({ kind: "replay", response: failed });
  });

  it("rolls the mark back with a change that fails: the key is free again", async () => {
    const { database, idem } = await setup();
    const running = proceed(await idem.begin(scope, "{}"));
    await expect(
      database.transaction(async (tx) => {
        await running.change(tx);
        throw new Error("the disk is full");
      }),
    ).rejects.toThrow("the disk is full");
    await running.finish(failed, false);
    expect((await idem.begin(scope, "{}")).kind).toBe("proceed");
  });

  it("refuses a duplicate while the first runs with in_use, and another body with reused", async () => {
    const { idem } = await setup();
    const running = proceed(await idem.begin(scope, "{}"));
    await expect(idem.begin(scope, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use", message: expect.stringContaining("still being processed") });
    await expect(idem.begin(scope, "{\"x\":1}")).rejects.toMatchObject({ code: "idempotency_key_reused" });
    await running.finish(ok, true);
    await expect(idem.begin(scope, "{\"x\":1}")).rejects.toMatchObject({ code: "idempotency_key_reused" });
  });

  it("answers in_use, not a lost answer, while a request whose change is committed has yet to store its answer", async () => {
    const { database, idem } = await setup();
    const running = proceed(await idem.begin(scope, "{}"));
    await changeWith(database, running.change);
    await expect(idem.begin(scope, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use", message: expect.stringContaining("still being processed") });
    await running.finish(ok, true);
    expect((await idem.begin(scope, "{}")).kind).toBe("replay");
  });

  it("lets exactly one of simultaneous begins proceed", async () => {
    const { idem } = await setup();
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => idem.begin(scope, "{}")));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes) if (o.status === "rejected") expect(o.reason.code).toBe("idempotency_key_in_use");
  });

  it("keeps keys apart by account, method and path", async () => {
    const { idem } = await setup();
    await proceed(await idem.begin(scope, "{}")).finish(ok, true);
    for (const other of [{ ...scope, account_id: "acct_b" }, { ...scope, method: "PATCH" }, { ...scope, path: `${scope.path}/x` }, { ...scope, key: "k2" }]) {
      expect((await idem.begin(other, "{}")).kind).toBe("proceed");
    }
  });

  it("expires after 24 hours on the injected clock", async () => {
    const { idem, clock } = await setup();
    await proceed(await idem.begin(scope, "{}")).finish(ok, true);
    clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await idem.begin(scope, "{}")).kind).toBe("replay");
    clock.advance(1);
    // Expired: runs again, and a different body is no longer "reused".
    await proceed(await idem.begin(scope, "{\"other\":true}")).finish(ok, true);
    expect((await idem.begin(scope, "{\"other\":true}")).kind).toBe("replay");
  });

  it("sweeps expired records, but never the key of a request running again", async () => {
    const { idem, clock, count } = await setup();
    await proceed(await idem.begin(scope, "{}")).finish(ok, true);
    await proceed(await idem.begin({ ...scope, key: "k2" }, "{}")).finish(ok, true);
    clock.advance(IDEMPOTENCY_TTL_MS);
    // k1 has expired and runs again: its key belongs to that request until it finishes.
    const running = proceed(await idem.begin(scope, "{\"again\":1}"));
    expect(await idem.sweep()).toBe(1);
    expect(await count()).toBe(1);
    await running.finish(ok, true);
    expect(await idem.begin(scope, "{\"again\":1}")).toEqual({ kind: "replay", response: ok });
    expect((await idem.begin({ ...scope, key: "k2" }, "{\"x\":1}")).kind).toBe("proceed");
  });

  it("refuses keys outside 1 to 255 characters", async () => {
    const { idem } = await setup();
    const issue = (code: string) => ({ code: "validation_error", details: { issues: [{ path: "header.Idempotency-Key", code, message: "must be 1 to 255 characters" }] } });
    await expect(idem.begin({ ...scope, key: "" }, "{}")).rejects.toMatchObject(issue("too_small"));
    await expect(idem.begin({ ...scope, key: "x".repeat(256) }, "{}")).rejects.toMatchObject(issue("too_long"));
    // The bounds themselves are accepted.
    expect((await idem.begin({ ...scope, key: "x" }, "{}")).kind).toBe("proceed");
    expect((await idem.begin({ ...scope, key: "y".repeat(255) }, "{}")).kind).toBe("proceed");
  });

  it("shares the key between services on one database; a claim that lapsed is taken over, and its mark then refuses", async () => {
    const { database, clock, service } = await setup();
    // Two services, as two processes on one database would run.
    const [one, two] = [service(), service()];
    const running = proceed(await one.begin(scope, "{}"));
    await expect(two.begin(scope, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    await expect(two.begin(scope, "{\"x\":1}")).rejects.toMatchObject({ code: "idempotency_key_reused" });
    await running.finish(ok, true);
    expect(await two.begin(scope, "{}")).toEqual({ kind: "replay", response: ok });

    // A process that died mid-request stops blocking the key once its claim lapses.
    const other = { ...scope, key: "k2" };
    const stalled = proceed(await one.begin(other, "{}"));
    clock.advance(IDEMPOTENCY_EXECUTING_MS - 1);
    await expect(two.begin(other, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    clock.advance(1);
    const taken = proceed(await two.begin(other, "{}"));
    // The first, still running after all, can no longer change anything under the key, nor answer it.
    await expect(changeWith(database, stalled.change, "late")).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    expect(await database.db.selectFrom("settings").select("name").where("name", "=", "late").execute()).toEqual([]);
    await stalled.finish(failed, true);
    await changeWith(database, taken.change);
    await taken.finish(ok, true);
    expect(await one.begin(other, "{}")).toEqual({ kind: "replay", response: ok });
  });

  it.skipIf(kind === "postgres")("on SQLite, ends at start the claims of an earlier process: a committed change answers that it was made", async () => {
    const { database, service } = await setup();
    const before = service();
    const changed = proceed(await before.begin(scope, "{}"));
    await changeWith(database, changed.change);
    proceed(await before.begin({ ...scope, key: "k2" }, "{}"));
    // The process stops here, before either answer is stored; the next one opens the database.
    const after = service();
    expect(await after.recover()).toBe(2);
    await expect(after.begin(scope, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use", message: expect.stringContaining("made its change, but lp stopped") });
    await expect(after.begin(scope, "{\"other\":1}")).rejects.toMatchObject({ code: "idempotency_key_reused" });
    // The key whose request made no change runs again.
    expect((await after.begin({ ...scope, key: "k2" }, "{}")).kind).toBe("proceed");
  });

  it.skipIf(kind !== "postgres")("on PostgreSQL, leaves other processes' claims to lapse by time", async () => {
    const { service } = await setup();
    proceed(await service().begin(scope, "{}"));
    const another = service();
    expect(await another.recover()).toBe(0);
    await expect(another.begin(scope, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use", message: expect.stringContaining("still being processed") });
  });
});
