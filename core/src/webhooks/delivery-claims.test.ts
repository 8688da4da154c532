import { beforeEach, expect, it } from "vitest";
import type { Database } from "../db/database.js";
import { renewLease } from "../db/queue.js";
import { describeDatabases } from "../testing/databases.js";
import { DELIVERY_QUEUE } from "./delivery-claims.js";
import { failedAttempt, createDeliverySteps, type DeliverySteps } from "./delivery-steps.fixture.js";
import { at, seedApplication, toTestEndpoint, toTestEvent } from "./webhook-rows.fixture.js";

describeDatabases("the webhook delivery claims", ({ open }) => {
  let database: Database;
  let endpoints: DeliverySteps["endpoints"];
  let deliveries: DeliverySteps["deliveries"];
  let claims: DeliverySteps["claims"];
  let addEndpoints: DeliverySteps["addEndpoints"];
  let fanOut: DeliverySteps["fanOut"];
  let claim: DeliverySteps["claim"];
  let fail: DeliverySteps["fail"];
  beforeEach(async () => {
    database = await open();
    ({ endpoints, deliveries, claims, addEndpoints, fanOut, claim, fail } = createDeliverySteps(database));
    await seedApplication(database.db, "app_1", ["acct_1"]);
  });

  it("claims due deliveries earliest first within each endpoint's concurrency_limit", async () => {
    const [two, one] = await addEndpoints(toTestEndpoint("we_01", { concurrency_limit: 2 }), toTestEndpoint("we_02", { concurrency_limit: 1 }));
    await fanOut(4, [two, one]);
    // Not yet due at 10:01:01 but the first.
    expect((await claim("p1", at(1, 0))).map((c) => [c.delivery.endpoint_id, c.delivery.event_id])).toEqual([
      ["we_01", "evt_0000"],
      ["we_02", "evt_0000"],
    ]);
    const second = await claim("p2", at(5));
    // we_01 has one slot left, we_02 none.
    expect(second.map((c) => [c.delivery.endpoint_id, c.delivery.event_id, c.probe])).toEqual([["we_01", "evt_0001", false]]);
    expect(await claim("p3", at(5))).toEqual([]);
    // A finished attempt frees its slot; the delivery is due again later.
    expect(await fail(second[0].delivery, "p2", at(5), at(40))).toBe(true);
    expect((await claim("p3", at(5))).map((c) => c.delivery.event_id)).toEqual(["evt_0002"]);
    const row = await deliveries.get(database.db, second[0].delivery.id);
    expect(row).toMatchObject({ status: "pending", next_attempt_at: at(40), attempts: [failedAttempt(1, at(5))], scheduled_attempts: 1 });
  });

  it("claims no more than the limit, across endpoints", async () => {
    const targets = await addEndpoints(toTestEndpoint("we_01"), toTestEndpoint("we_02"), toTestEndpoint("we_03"));
    await fanOut(3, targets);
    const claimed = await claim("p1", at(5), 5);
    expect(claimed.length).toBe(5);
    expect(new Set(claimed.map((c) => c.delivery.id)).size).toBe(5);
    expect((await claim("p2", at(5), 10)).length).toBe(4);
  });

  it("holds concurrency_limit 1 when owners claim at once", async () => {
    const targets = await addEndpoints(
      toTestEndpoint("we_01", { concurrency_limit: 1 }),
      toTestEndpoint("we_02", { concurrency_limit: 1 }),
      toTestEndpoint("we_03", { concurrency_limit: 1 }),
    );
    await fanOut(8, targets);
    for (let round = 0; round < 8; round++) {
      // Six owners at once, each in its own transaction (its own connection on PostgreSQL).
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => claim(`p${i}`, at(10 + round))));
      const taken = claims.flatMap((c, i) => c.map((x) => ({ owner: `p${i}`, delivery: x.delivery })));
      expect(taken.map((t) => t.delivery.endpoint_id).sort()).toEqual(["we_01", "we_02", "we_03"]);
      const inFlight = await database.db.selectFrom("webhook_deliveries").select("endpoint_id").where("lease_owner", "is not", null).execute();
      expect(inFlight.length).toBe(3);
      for (const t of taken) expect(await fail(t.delivery, t.owner, at(10 + round), null)).toBe(true);
    }
    const settled = await database.db.selectFrom("webhook_deliveries").select("id").where("status", "=", "failed").execute();
    expect(settled.length).toBe(24);
  });

  it("claims nothing for an open circuit, then one probe once it cools down", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01", { circuit: { state: "open", consecutive_failures: 5, reopen_count: 0, opens_until: at(10) } }));
    await fanOut(3, [endpoint]);
    expect(await claim("p1", at(9, 59))).toEqual([]);
    expect(await claims.nextDueAt(database.db, at(5))).toBe(at(10));
    const [probe, ...more] = await claim("p1", at(10));
    expect(more).toEqual([]);
    expect(probe).toMatchObject({ probe: true, delivery: { event_id: "evt_0000" } });
    expect((await endpoints.get(database.db, "we_01"))?.circuit.state).toBe("half_open");
    // While the probe is out, nothing else goes, whatever the concurrency_limit.
    expect(await claim("p2", at(11))).toEqual([]);
    // The probe fails: the circuit re-opens (the engine's change, in the attempt's transaction).
    await database.transaction(async (tx) => {
      await endpoints.lock(tx, "we_01");
      expect(await claims.recordAttempt(tx, probe.delivery.id, "p1", failedAttempt(1, at(11)), { ...probe.delivery, next_attempt_at: at(12), updated_at: at(11) })).toBe(true);
      await endpoints.update(tx, "we_01", { circuit: { state: "open", consecutive_failures: 6, reopen_count: 1, opens_until: at(20) } });
    });
    expect(await claim("p2", at(15))).toEqual([]);
    expect(await claims.nextDueAt(database.db, at(15))).toBe(at(20));
    // Closed again, the endpoint's deliveries go up to its limit.
    await database.transaction((tx) => endpoints.update(tx, "we_01", { circuit: { state: "closed", consecutive_failures: 0, reopen_count: 0, opens_until: null } }));
    expect((await claim("p2", at(21))).map((c) => [c.delivery.event_id, c.probe])).toEqual([
      ["evt_0001", false],
      ["evt_0002", false],
      ["evt_0000", false],
    ]);
  });

  it("takes over a delivery whose lease lapsed, and refuses the old owner's attempt", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01", { concurrency_limit: 1 }));
    await fanOut(2, [endpoint]);
    const [dead] = await claim("dead", at(2), 10, at(2, 30));
    expect(dead.delivery.event_id).toBe("evt_0000");
    // The lease holds the endpoint's one slot until it lapses.
    expect(await claim("p2", at(2, 29))).toEqual([]);
    expect(await claims.nextDueAt(database.db, at(2, 29))).toBe(at(2, 30));
    const [taken] = await claim("p2", at(2, 30), 10, at(3));
    expect(taken.delivery.id).toBe(dead.delivery.id);
    expect(await fail(dead.delivery, "dead", at(2, 31), at(9))).toBe(false);
    expect(await database.transaction((tx) => renewLease(tx, DELIVERY_QUEUE, dead.delivery.id, "dead", at(4)))).toBe(false);
    expect(await deliveries.get(database.db, dead.delivery.id)).toMatchObject({ attempts: [], status: "pending", next_attempt_at: at(1) });
    expect(await database.transaction((tx) => renewLease(tx, DELIVERY_QUEUE, taken.delivery.id, "p2", at(5)))).toBe(true);
    expect(await fail(taken.delivery, "p2", at(2, 32), at(9))).toBe(true);
    expect(await deliveries.get(database.db, dead.delivery.id)).toMatchObject({ attempts: [failedAttempt(1, at(2, 32))], next_attempt_at: at(9) });
  });

  it("records an attempt of a lapsed lease no one took over", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01"));
    const [made] = await fanOut(1, [endpoint]);
    await claim("slow", at(2), 10, at(2, 30));
    expect(await fail(made, "slow", at(3), null)).toBe(true);
    expect(await deliveries.get(database.db, made.id)).toMatchObject({ status: "failed", next_attempt_at: null, auto_retry: false, attempts: [failedAttempt(1, at(3))] });
    expect(await claim("p2", at(4))).toEqual([]);
  });

  it("holds a claimed delivery without an attempt, and releases it when the endpoint is active again", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01"));
    const [made] = await fanOut(1, [endpoint]);
    const [claimed] = await claim("p1", at(2));
    // The engine finds the endpoint paused: held with no due time.
    expect(await database.transaction((tx) => claims.releaseClaim(tx, claimed.delivery.id, "p1", { ...claimed.delivery, next_attempt_at: null, updated_at: at(2) }))).toBe(true);
    expect(await database.transaction((tx) => claims.releaseClaim(tx, claimed.delivery.id, "p1", { ...claimed.delivery, status: "skipped", updated_at: at(2) }))).toBe(false);
    expect(await claim("p1", at(3))).toEqual([]);
    expect(await claims.nextDueAt(database.db, at(3))).toBeNull();
    expect(await claims.releaseHeld(database.db, "we_01", at(4))).toBe(1);
    expect(await deliveries.get(database.db, made.id)).toMatchObject({ status: "pending", next_attempt_at: at(4), updated_at: at(4) });
    expect(await claims.releaseHeld(database.db, "we_01", at(5))).toBe(0);
    expect((await claim("p1", at(4))).map((c) => c.delivery.id)).toEqual([made.id]);
  });

  it("marks a settled delivery for one manual attempt, and leaves one in flight", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01"), toTestEndpoint("we_02"));
    const [made] = await fanOut(1, [endpoint]);
    const [claimed] = await claim("p1", at(2));
    expect(await claims.markForRetry(database.db, "we_01", made.id, at(2, 10))).toMatchObject({ kind: "in_flight", delivery: { next_trigger: "scheduled" } });
    expect(await fail(claimed.delivery, "p1", at(3), null)).toBe(true);
    const marked = await claims.markForRetry(database.db, "we_01", made.id, at(4));
    expect(marked).toMatchObject({ kind: "marked", delivery: { status: "pending", next_trigger: "manual", next_attempt_at: at(4), updated_at: at(4), attempts: [failedAttempt(1, at(3))] } });
    expect(await claims.markForRetry(database.db, "we_02", made.id, at(4))).toBeNull();
    expect(await claims.markForRetry(database.db, "we_01", "dlv_none", at(4))).toBeNull();
    expect((await claim("p1", at(4))).map((c) => [c.delivery.id, c.delivery.next_trigger])).toEqual([[made.id, "manual"]]);
  });

  it("says when a claim could next take something", async () => {
    expect(await claims.nextDueAt(database.db, at(0))).toBeNull();
    const [one, other] = await addEndpoints(toTestEndpoint("we_01", { concurrency_limit: 1 }), toTestEndpoint("we_02"));
    await fanOut(1, [one], 30);
    expect(await claims.nextDueAt(database.db, at(0))).toBe(at(1, 30));
    await fanOut(1, [other], 20);
    expect(await claims.nextDueAt(database.db, at(0))).toBe(at(1, 20));
    expect(await claims.nextDueAt(database.db, at(2))).toBe(at(2));
    const claimed = await claim("p1", at(2), 10, at(3));
    expect(claimed.length).toBe(2);
    // Both in flight: the first lease to lapse.
    expect(await claims.nextDueAt(database.db, at(2))).toBe(at(3));
    await fail(claimed.find((c) => c.delivery.endpoint_id === "we_02")!.delivery, "p1", at(2), at(7));
    expect(await claims.nextDueAt(database.db, at(2))).toBe(at(3));
    await fail(claimed.find((c) => c.delivery.endpoint_id === "we_01")!.delivery, "p1", at(2), at(6));
    expect(await claims.nextDueAt(database.db, at(2))).toBe(at(6));
  });

  it("defers an endpoint's due deliveries to its probe, leaving later ones and one in flight", async () => {
    const [endpoint, other] = await addEndpoints(toTestEndpoint("we_01"), toTestEndpoint("we_02"));
    const made = await fanOut(3, [endpoint, other]);
    const [inFlight] = await claim("p1", at(2), 1);
    const [, laterOne] = made.filter((d) => d.endpoint_id === "we_01" && d.id !== inFlight.delivery.id);
    await database.db.updateTable("webhook_deliveries").set({ due_at: at(9) }).where("id", "=", laterOne.id).execute();
    expect(await claims.deferDue(database.db, "we_01", at(5), at(3))).toBe(1);
    const due = async (endpointId: string) => (await deliveries.list(database.db, endpointId, { limit: 10 })).items.map((d) => [d.id, d.next_attempt_at]);
    expect(await due("we_01")).toEqual([
      [laterOne.id, at(9)],
      [made[2].id, at(5)],
      [inFlight.delivery.id, at(1, 0)],
    ]);
    expect((await due("we_02")).map(([, nextAt]) => nextAt)).toEqual([at(1, 2), at(1, 1), at(1, 0)]);
  });

  it("skips what a disabled endpoint has due, but its test deliveries, held ones and those in flight", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01"));
    const made = await fanOut(3, [endpoint]);
    const test = toTestEvent("evt_test", { type: "webhook.test", account_id: null, timestamp: at(2) });
    const [testDelivery] = await database.transaction((tx) => deliveries.recordEvent(tx, test, [endpoint], { trigger: "test" }));
    const [inFlight] = await claim("p1", at(1, 0), 1);
    await database.db.updateTable("webhook_deliveries").set({ due_at: null }).where("id", "=", made[2].id).execute();
    expect(await claims.skipDue(database.db, "we_01", "endpoint_disabled", at(3))).toBe(1);
    const byId = new Map((await deliveries.list(database.db, "we_01", { limit: 10 })).items.map((d) => [d.id, d]));
    expect(byId.get(made[1].id)).toMatchObject({ status: "skipped", skipped_reason: "endpoint_disabled", next_attempt_at: null, updated_at: at(3) });
    expect(byId.get(inFlight.delivery.id)).toMatchObject({ status: "pending", next_attempt_at: at(1, 0) });
    expect(byId.get(made[2].id)).toMatchObject({ status: "pending", next_attempt_at: null });
    expect(byId.get(testDelivery.id)).toMatchObject({ status: "pending", next_attempt_at: at(2) });
  });
});
