import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { createManualClock } from "../deps.js";
import { createLocalLock } from "../ports/lock.js";
import { createIdempotency, IDEMPOTENCY_EXECUTING_MS, IDEMPOTENCY_TTL_MS, type IdempotencyDecision, type StoredResponse } from "./idempotency.js";

const scope = { account_id: "acct_a", method: "POST", path: "/v1/accounts/acct_a/products", key: "k1" };
const ok: StoredResponse = { status: 201, headers: { "content-type": "application/json" }, body: "{\"data\":1}" };

function setup() {
  const storage = createStorage();
  const clock = createManualClock();
  return { storage, clock, idem: createIdempotency({ storage, clock, lock: createLocalLock() }) };
}

const proceed = (d: IdempotencyDecision) => {
  if (d.kind !== "proceed") throw new Error(`expected proceed, got ${d.kind}`);
  return d;
};

describe("idempotency", () => {
  it("runs once, then replays the stored response", async () => {
    const { idem } = setup();
    await proceed(await idem.begin(scope, "{}")).finish(ok);
    expect(await idem.begin(scope, "{}")).toEqual({ kind: "replay", response: ok });
  });

  it("stores nothing when finished with null, so the key can be used again", async () => {
    const { idem, storage } = setup();
    await proceed(await idem.begin(scope, "bad")).finish(null);
    expect(await storage.getKeys()).toEqual([]);
    await proceed(await idem.begin(scope, "good")).finish(ok);
    expect((await idem.begin(scope, "good")).kind).toBe("replay");
  });

  it("refuses a concurrent duplicate with in_use, and another body with reused", async () => {
    const { idem } = setup();
    const running = proceed(await idem.begin(scope, "{}"));
    await expect(idem.begin(scope, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    await expect(idem.begin(scope, "{\"x\":1}")).rejects.toMatchObject({ code: "idempotency_key_reused" });
    await running.finish(ok);
    await expect(idem.begin(scope, "{\"x\":1}")).rejects.toMatchObject({ code: "idempotency_key_reused" });
  });

  it("lets exactly one of simultaneous begins proceed", async () => {
    const { idem } = setup();
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => idem.begin(scope, "{}")));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes) if (o.status === "rejected") expect(o.reason.code).toBe("idempotency_key_in_use");
  });

  it("keeps keys apart by account, method and path", async () => {
    const { idem } = setup();
    await proceed(await idem.begin(scope, "{}")).finish(ok);
    for (const other of [{ ...scope, account_id: "acct_b" }, { ...scope, method: "PATCH" }, { ...scope, path: `${scope.path}/x` }, { ...scope, key: "k2" }]) {
      expect((await idem.begin(other, "{}")).kind).toBe("proceed");
    }
  });

  it("expires after 24 hours on the injected clock", async () => {
    const { idem, clock } = setup();
    await proceed(await idem.begin(scope, "{}")).finish(ok);
    clock.advance(IDEMPOTENCY_TTL_MS - 1);
    expect((await idem.begin(scope, "{}")).kind).toBe("replay");
    clock.advance(1);
    // Expired: runs again, and a different body is no longer "reused".
    await proceed(await idem.begin(scope, "{\"other\":true}")).finish(ok);
  });

  it("sweeps expired records, but never the key of a request this process is running", async () => {
    const { idem, storage, clock } = setup();
    // The sweep finds the keys through the accounts.
    await storage.setItem("accounts:acct_a", { id: "acct_a" });
    await proceed(await idem.begin(scope, "{}")).finish(ok);
    await proceed(await idem.begin({ ...scope, key: "k2" }, "{}")).finish(ok);
    clock.advance(IDEMPOTENCY_TTL_MS);
    // k1 has expired and runs again: its key belongs to that request until it finishes.
    const running = proceed(await idem.begin(scope, "{\"again\":1}"));
    expect(await idem.sweep()).toBe(1);
    expect(await storage.getKeys("idem:acct_a")).toHaveLength(1);
    await running.finish(ok);
    expect(await idem.begin(scope, "{\"again\":1}")).toEqual({ kind: "replay", response: ok });
    expect((await idem.begin({ ...scope, key: "k2" }, "{\"x\":1}")).kind).toBe("proceed");
  });

  it("refuses keys outside 1 to 255 characters", async () => {
    const { idem } = setup();
    const issue = (code: string) => ({ code: "validation_error", details: { issues: [{ path: "header.Idempotency-Key", code, message: "must be 1 to 255 characters" }] } });
    await expect(idem.begin({ ...scope, key: "" }, "{}")).rejects.toMatchObject(issue("too_small"));
    await expect(idem.begin({ ...scope, key: "x".repeat(256) }, "{}")).rejects.toMatchObject(issue("too_long"));
    // The bounds themselves are accepted.
    expect((await idem.begin({ ...scope, key: "x" }, "{}")).kind).toBe("proceed");
    expect((await idem.begin({ ...scope, key: "y".repeat(255) }, "{}")).kind).toBe("proceed");
  });

  it("on a shared store, keeps the executing state in storage, where a second process sees it", async () => {
    const storage = createStorage();
    const clock = createManualClock();
    // Two instances over one storage, as two processes of a cluster would be.
    const [one, two] = [0, 1].map(() => createIdempotency({ storage, clock, lock: createLocalLock(), shared: true }));
    const running = proceed(await one.begin(scope, "{}"));
    await expect(two.begin(scope, "{}")).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    await expect(two.begin(scope, "{\"x\":1}")).rejects.toMatchObject({ code: "idempotency_key_reused" });
    await running.finish(ok);
    expect(await two.begin(scope, "{}")).toEqual({ kind: "replay", response: ok });
    // finish(null) takes the marker away, so the key can be sent again at once.
    const other = { ...scope, key: "k2" };
    await proceed(await two.begin(other, "bad")).finish(null);
    expect((await one.begin(other, "good")).kind).toBe("proceed");
    // The marker of a process that died mid-request stops blocking the key once it expires.
    await expect(two.begin(other, "good")).rejects.toMatchObject({ code: "idempotency_key_in_use" });
    clock.advance(IDEMPOTENCY_EXECUTING_MS);
    expect((await two.begin(other, "good")).kind).toBe("proceed");
  });
});
