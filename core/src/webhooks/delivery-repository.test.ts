import { beforeEach, expect, it } from "vitest";
import type { Database } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { describeDatabases } from "../testing/databases.js";
import { createDeliveryRepository, type DeliveryRepository } from "./delivery-repository.js";
import { createEndpointRepository, type EndpointRepository } from "./endpoint-repository.js";
import { toDeliveryId } from "./ordered-id.js";
import { toNewDelivery, type AttemptRecord, type DeliveryRecord, type EndpointRecord } from "./records.js";
import { at, seedApplication, toTestEndpoint, toTestEvent } from "./webhook-rows.fixture.js";

const failedAttempt = (number: number, started_at: string): AttemptRecord => ({
  number,
  trigger: "scheduled",
  started_at,
  status_code: 503,
  latency_ms: 40,
  outcome: "failed",
  error: "answered 503",
  response_body: "busy",
  truncated: false,
});

describeDatabases("the webhook delivery repository", ({ open }) => {
  let database: Database;
  let endpoints: EndpointRepository;
  let deliveries: DeliveryRepository;
  beforeEach(async () => {
    database = await open();
    endpoints = createEndpointRepository(database.dialect);
    deliveries = createDeliveryRepository(database.dialect);
    await seedApplication(database.db, "app_1", ["acct_1"]);
  });

  const addEndpoints = (...records: EndpointRecord[]) => database.transaction(async (tx) => {
    for (const record of records) await endpoints.insert(tx, record);
    return records;
  });
  /** Events `evt_<n>` on `endpointIds`, one a second from `from` (seconds after 10:01), and their deliveries. */
  async function fanOut(count: number, targets: EndpointRecord[], from = 0): Promise<DeliveryRecord[]> {
    const made: DeliveryRecord[] = [];
    for (let i = 0; i < count; i++) {
      const n = from + i;
      const event = toTestEvent(`evt_${String(n).padStart(4, "0")}`, { timestamp: at(1, n) });
      made.push(...(await database.transaction((tx) => deliveries.recordEvent(tx, event, targets))));
    }
    return made;
  }
  const claim = (owner: string, now: string, limit = 10, leaseUntil = at(59)) =>
    database.transaction((tx) => deliveries.claimDue(tx, { now, owner, leaseUntil, limit }));
  /** Records a failed attempt of a claimed delivery, due again at `nextAt`. */
  const fail = (d: DeliveryRecord, owner: string, finished: string, nextAt: string | null) =>
    database.transaction((tx) =>
      deliveries.recordAttempt(tx, d.id, owner, failedAttempt(d.attempts.length + 1, finished), {
        ...d,
        status: nextAt ? "pending" : "failed",
        scheduled_attempts: d.scheduled_attempts + 1,
        auto_retry: nextAt !== null,
        next_attempt_at: nextAt,
        updated_at: finished,
      }),
    );

  it("stores an event and its deliveries in the state each endpoint's status gives them", async () => {
    const targets = await addEndpoints(
      toTestEndpoint("we_01"),
      toTestEndpoint("we_02", { status: "paused" }),
      toTestEndpoint("we_03", { status: "pending_verification" }),
      toTestEndpoint("we_04", { status: "disabled", disabled_reason: "manual" }),
    );
    const event = toTestEvent("evt_01", { data: { id: "prod_1", nested: { price: 12.5, tags: ["a"] } } });
    const made = await database.transaction((tx) => deliveries.recordEvent(tx, event, targets));
    expect(made.map((d) => [d.endpoint_id, d.status, d.next_attempt_at, d.skipped_reason])).toEqual([
      ["we_01", "pending", at(1), null],
      ["we_02", "pending", null, null],
      ["we_03", "skipped", null, "endpoint_pending_verification"],
      ["we_04", "skipped", null, "endpoint_disabled"],
    ]);
    for (const d of made) expect(await deliveries.get(database.db, d.id)).toEqual(d);
    const [first] = made;
    expect(first).toMatchObject({ id: toDeliveryId("evt_01", "we_01"), payload: event, attempts: [], next_trigger: "scheduled", auto_retry: true, created_at: at(1) });
    expect(await deliveries.get(database.db, first.id, "we_01")).toEqual(first);
    expect(await deliveries.get(database.db, first.id, "we_02")).toBeNull();
    expect(await deliveries.get(database.db, "dlv_none")).toBeNull();
    // Only the active endpoint's delivery is due.
    expect((await claim("p1", at(2))).map((c) => c.delivery.id)).toEqual([first.id]);
  });

  it("makes a delivery to an endpoint whose circuit is open due when it may probe", async () => {
    const open = { state: "open" as const, consecutive_failures: 5, reopen_count: 0, opens_until: at(1, 30) };
    const targets = await addEndpoints(toTestEndpoint("we_01", { circuit: open }), toTestEndpoint("we_02", { circuit: { ...open, opens_until: at(0, 30) } }));
    const made = await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_01"), targets));
    expect(made.map((d) => [d.endpoint_id, d.next_attempt_at])).toEqual([
      ["we_01", at(1, 30)],
      ["we_02", at(1)],
    ]);
    for (const d of made) expect(await deliveries.get(database.db, d.id)).toEqual(d);
  });

  it("keeps an event nothing subscribes to, for replay", async () => {
    expect(await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_01"), []))).toEqual([]);
    expect((await deliveries.eventsSince(database.db, { from: at(0), to: at(59), limit: 10 })).items).toEqual([toTestEvent("evt_01")]);
  });

  it("rolls an event and its whole fan-out back with the caller's change", async () => {
    const targets = await addEndpoints(toTestEndpoint("we_01"), toTestEndpoint("we_02"));
    await expect(
      database.transaction(async (tx) => {
        await deliveries.recordEvent(tx, toTestEvent("evt_01"), targets);
        throw new Error("the product's write failed");
      }),
    ).rejects.toThrow("the product's write failed");
    expect(await database.db.selectFrom("events").selectAll().execute()).toEqual([]);
    expect(await database.db.selectFrom("webhook_deliveries").selectAll().execute()).toEqual([]);
    // A fan-out to an endpoint deleted meanwhile fails whole too: nothing half-made.
    const error = await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_02"), [...targets, toTestEndpoint("we_gone")])).catch((e: unknown) => e);
    expect(isForeignKeyViolation(error)).toBe(true);
    expect(await database.db.selectFrom("events").selectAll().execute()).toEqual([]);
    expect(await database.db.selectFrom("webhook_deliveries").selectAll().execute()).toEqual([]);
  });

  it("stores a fan-out to more endpoints than one statement takes", async () => {
    const many = Array.from({ length: 1203 }, (_, i) => toTestEndpoint(`we_${String(i).padStart(4, "0")}`));
    await addEndpoints(...many);
    const made = await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_01"), many));
    expect(made.length).toBe(1203);
    const { n } = await database.db.selectFrom("webhook_deliveries").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(Number(n)).toBe(1203);
  });

  it("sends a test delivery whatever the endpoint's status", async () => {
    const [paused] = await addEndpoints(toTestEndpoint("we_01", { status: "paused" }));
    const event = toTestEvent("evt_01", { type: "webhook.test", account_id: null, data: { endpoint_id: "we_01" } });
    const [made] = await database.transaction((tx) => deliveries.recordEvent(tx, event, [paused], { trigger: "test" }));
    expect(made).toMatchObject({ status: "pending", next_trigger: "test", next_attempt_at: at(1), event_type: "webhook.test" });
    expect(await deliveries.get(database.db, made.id)).toEqual(made);
  });

  it("lists an endpoint's deliveries newest first, by status and event type, a page at a time", async () => {
    const [one, other] = await addEndpoints(toTestEndpoint("we_01", { concurrency_limit: 50 }), toTestEndpoint("we_02"));
    const made = await fanOut(6, [one, other]);
    const updated = await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_0100", { type: "product.updated", timestamp: at(1, 30) }), [one]));
    // The first two of we_01 fail for good.
    for (const c of await claim("p1", at(2), 2)) expect(await fail(c.delivery, "p1", at(2), null)).toBe(true);
    const ids = (page: { items: DeliveryRecord[] }) => page.items.map((d) => d.event_id);
    const all = await deliveries.list(database.db, "we_01", { limit: 3 });
    expect(ids(all)).toEqual(["evt_0100", "evt_0005", "evt_0004"]);
    expect(all.hasMore).toBe(true);
    const last = all.items.at(-1)!;
    const rest = await deliveries.list(database.db, "we_01", { limit: 10, after: { value: last.created_at, id: last.id } });
    expect(ids(rest)).toEqual(["evt_0003", "evt_0002", "evt_0001", "evt_0000"]);
    expect(rest.hasMore).toBe(false);
    const failed = await deliveries.list(database.db, "we_01", { limit: 10, status: "failed" });
    expect(ids(failed)).toEqual(["evt_0001", "evt_0000"]);
    expect(failed.items[0].attempts).toEqual([failedAttempt(1, at(2))]);
    expect(ids(await deliveries.list(database.db, "we_01", { limit: 10, event_type: "product.updated" }))).toEqual(["evt_0100"]);
    expect(updated[0].payload.type).toBe("product.updated");
    const pendingCreated = await deliveries.list(database.db, "we_01", { limit: 2, status: "pending", event_type: "product.created" });
    expect(ids(pendingCreated)).toEqual(["evt_0005", "evt_0004"]);
    const tail = pendingCreated.items.at(-1)!;
    expect(ids(await deliveries.list(database.db, "we_01", { limit: 2, status: "pending", event_type: "product.created", after: { value: tail.created_at, id: tail.id } }))).toEqual(["evt_0003", "evt_0002"]);
    expect(ids(await deliveries.list(database.db, "we_02", { limit: 10, status: "failed" }))).toEqual([]);
    expect(made.length).toBe(12);
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
    expect(await deliveries.nextDueAt(database.db, at(5))).toBe(at(10));
    const [probe, ...more] = await claim("p1", at(10));
    expect(more).toEqual([]);
    expect(probe).toMatchObject({ probe: true, delivery: { event_id: "evt_0000" } });
    expect((await endpoints.get(database.db, "we_01"))?.circuit.state).toBe("half_open");
    // While the probe is out, nothing else goes, whatever the concurrency_limit.
    expect(await claim("p2", at(11))).toEqual([]);
    // The probe fails: the circuit re-opens (the engine's change, in the attempt's transaction).
    await database.transaction(async (tx) => {
      await endpoints.lock(tx, "we_01");
      expect(await deliveries.recordAttempt(tx, probe.delivery.id, "p1", failedAttempt(1, at(11)), { ...probe.delivery, next_attempt_at: at(12), updated_at: at(11) })).toBe(true);
      await endpoints.update(tx, "we_01", { circuit: { state: "open", consecutive_failures: 6, reopen_count: 1, opens_until: at(20) } });
    });
    expect(await claim("p2", at(15))).toEqual([]);
    expect(await deliveries.nextDueAt(database.db, at(15))).toBe(at(20));
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
    expect(await deliveries.nextDueAt(database.db, at(2, 29))).toBe(at(2, 30));
    const [taken] = await claim("p2", at(2, 30), 10, at(3));
    expect(taken.delivery.id).toBe(dead.delivery.id);
    expect(await fail(dead.delivery, "dead", at(2, 31), at(9))).toBe(false);
    expect(await database.transaction((tx) => deliveries.renewLease(tx, dead.delivery.id, "dead", at(4)))).toBe(false);
    expect(await deliveries.get(database.db, dead.delivery.id)).toMatchObject({ attempts: [], status: "pending", next_attempt_at: at(1) });
    expect(await database.transaction((tx) => deliveries.renewLease(tx, taken.delivery.id, "p2", at(5)))).toBe(true);
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
    expect(await database.transaction((tx) => deliveries.releaseClaim(tx, claimed.delivery.id, "p1", { ...claimed.delivery, next_attempt_at: null, updated_at: at(2) }))).toBe(true);
    expect(await database.transaction((tx) => deliveries.releaseClaim(tx, claimed.delivery.id, "p1", { ...claimed.delivery, status: "skipped", updated_at: at(2) }))).toBe(false);
    expect(await claim("p1", at(3))).toEqual([]);
    expect(await deliveries.nextDueAt(database.db, at(3))).toBeNull();
    expect(await deliveries.releaseHeld(database.db, "we_01", at(4))).toBe(1);
    expect(await deliveries.get(database.db, made.id)).toMatchObject({ status: "pending", next_attempt_at: at(4), updated_at: at(4) });
    expect(await deliveries.releaseHeld(database.db, "we_01", at(5))).toBe(0);
    expect((await claim("p1", at(4))).map((c) => c.delivery.id)).toEqual([made.id]);
  });

  it("marks a settled delivery for one manual attempt, and leaves one in flight", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01"), toTestEndpoint("we_02"));
    const [made] = await fanOut(1, [endpoint]);
    const [claimed] = await claim("p1", at(2));
    expect(await deliveries.markForRetry(database.db, "we_01", made.id, at(2, 10))).toMatchObject({ kind: "in_flight", delivery: { next_trigger: "scheduled" } });
    expect(await fail(claimed.delivery, "p1", at(3), null)).toBe(true);
    const marked = await deliveries.markForRetry(database.db, "we_01", made.id, at(4));
    expect(marked).toMatchObject({ kind: "marked", delivery: { status: "pending", next_trigger: "manual", next_attempt_at: at(4), updated_at: at(4), attempts: [failedAttempt(1, at(3))] } });
    expect(await deliveries.markForRetry(database.db, "we_02", made.id, at(4))).toBeNull();
    expect(await deliveries.markForRetry(database.db, "we_01", "dlv_none", at(4))).toBeNull();
    expect((await claim("p1", at(4))).map((c) => [c.delivery.id, c.delivery.next_trigger])).toEqual([[made.id, "manual"]]);
  });

  it("says when a claim could next take something", async () => {
    expect(await deliveries.nextDueAt(database.db, at(0))).toBeNull();
    const [one, other] = await addEndpoints(toTestEndpoint("we_01", { concurrency_limit: 1 }), toTestEndpoint("we_02"));
    await fanOut(1, [one], 30);
    expect(await deliveries.nextDueAt(database.db, at(0))).toBe(at(1, 30));
    await fanOut(1, [other], 20);
    expect(await deliveries.nextDueAt(database.db, at(0))).toBe(at(1, 20));
    expect(await deliveries.nextDueAt(database.db, at(2))).toBe(at(2));
    const claimed = await claim("p1", at(2), 10, at(3));
    expect(claimed.length).toBe(2);
    // Both in flight: the first lease to lapse.
    expect(await deliveries.nextDueAt(database.db, at(2))).toBe(at(3));
    await fail(claimed.find((c) => c.delivery.endpoint_id === "we_02")!.delivery, "p1", at(2), at(7));
    expect(await deliveries.nextDueAt(database.db, at(2))).toBe(at(3));
    await fail(claimed.find((c) => c.delivery.endpoint_id === "we_01")!.delivery, "p1", at(2), at(6));
    expect(await deliveries.nextDueAt(database.db, at(2))).toBe(at(6));
  });

  it("reads the events of a window for a replay, oldest first, a page at a time", async () => {
    await seedApplication(database.db, "app_2", ["acct_2"]);
    const events = [
      toTestEvent("evt_01", { timestamp: at(1) }),
      toTestEvent("evt_02", { timestamp: at(2), type: "page.created" }),
      toTestEvent("evt_03", { timestamp: at(2), account_id: "acct_2" }),
      toTestEvent("evt_04", { timestamp: at(3), environment: "test" }),
      toTestEvent("evt_05", { timestamp: at(4), type: "webhook.test", account_id: null }),
      toTestEvent("evt_06", { timestamp: at(5) }),
    ];
    for (const event of events) await database.transaction((tx) => deliveries.recordEvent(tx, event, []));
    const ids = (page: { items: { id: string }[] }) => page.items.map((e) => e.id);
    const window = { from: at(2), to: at(4), limit: 10 };
    expect(ids(await deliveries.eventsSince(database.db, window))).toEqual(["evt_02", "evt_03", "evt_04", "evt_05"]);
    expect(ids(await deliveries.eventsSince(database.db, { ...window, types: ["product.created"] }))).toEqual(["evt_03", "evt_04"]);
    expect(ids(await deliveries.eventsSince(database.db, { ...window, environment: "production" }))).toEqual(["evt_02", "evt_03", "evt_05"]);
    expect(ids(await deliveries.eventsSince(database.db, { ...window, applicationId: "app_1" }))).toEqual(["evt_02", "evt_04"]);
    expect(ids(await deliveries.eventsSince(database.db, { from: at(0), to: at(9), limit: 10, applicationId: "app_2", types: ["product.created"] }))).toEqual(["evt_03"]);
    const first = await deliveries.eventsSince(database.db, { from: at(0), to: at(9), limit: 2 });
    expect(first).toEqual({ items: [events[0], events[1]], hasMore: true, next: { value: events[1].timestamp, id: events[1].id } });
    const second = await deliveries.eventsSince(database.db, { from: at(0), to: at(9), limit: 3, after: { value: at(2), id: "evt_02" } });
    expect(ids(second)).toEqual(["evt_03", "evt_04", "evt_05"]);
    expect(second.hasMore).toBe(true);
  });

  it("deletes old events but those a delivery carries", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01"));
    await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_01", { timestamp: at(1) }), [endpoint]));
    await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_02", { timestamp: at(2) }), []));
    await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_03", { timestamp: at(5) }), []));
    expect(await deliveries.deleteEventsBefore(database.db, at(5))).toBe(1);
    const left = async () => (await database.db.selectFrom("events").select("id").orderBy("id").execute()).map((e) => e.id);
    expect(await left()).toEqual(["evt_01", "evt_03"]);
    // The foreign key keeps a delivery's event whatever deletes it.
    expect(isForeignKeyViolation(await database.db.deleteFrom("events").where("id", "=", "evt_01").execute().catch((e: unknown) => e))).toBe(true);
    // Once its endpoint (and so its delivery) is gone, the event goes too.
    await endpoints.remove(database.db, "we_01");
    expect(await deliveries.deleteEventsBefore(database.db, at(5))).toBe(1);
    expect(await left()).toEqual(["evt_03"]);
  });

  it("stores a replay's delivery beside the fan-out's of the same event", async () => {
    const [endpoint] = await addEndpoints(toTestEndpoint("we_01"));
    const [made] = await fanOut(1, [endpoint]);
    const replay: DeliveryRecord = { ...made, id: `${made.id}0a0b0c0d`, created_at: at(30), updated_at: at(30), next_attempt_at: at(30) };
    await deliveries.addDelivery(database.db, replay);
    expect(await deliveries.get(database.db, replay.id)).toEqual(replay);
    expect((await deliveries.list(database.db, "we_01", { limit: 10 })).items.map((d) => d.id)).toEqual([replay.id, made.id]);
  });

  it("defers an endpoint's due deliveries to its probe, leaving later ones and one in flight", async () => {
    const [endpoint, other] = await addEndpoints(toTestEndpoint("we_01"), toTestEndpoint("we_02"));
    const made = await fanOut(3, [endpoint, other]);
    const [inFlight] = await claim("p1", at(2), 1);
    const [, laterOne] = made.filter((d) => d.endpoint_id === "we_01" && d.id !== inFlight.delivery.id);
    await database.db.updateTable("webhook_deliveries").set({ due_at: at(9) }).where("id", "=", laterOne.id).execute();
    expect(await deliveries.deferDue(database.db, "we_01", at(5), at(3))).toBe(1);
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
    expect(await deliveries.skipDue(database.db, "we_01", "endpoint_disabled", at(3))).toBe(1);
    const byId = new Map((await deliveries.list(database.db, "we_01", { limit: 10 })).items.map((d) => [d.id, d]));
    expect(byId.get(made[1].id)).toMatchObject({ status: "skipped", skipped_reason: "endpoint_disabled", next_attempt_at: null, updated_at: at(3) });
    expect(byId.get(inFlight.delivery.id)).toMatchObject({ status: "pending", next_attempt_at: at(1, 0) });
    expect(byId.get(made[2].id)).toMatchObject({ status: "pending", next_attempt_at: null });
    expect(byId.get(testDelivery.id)).toMatchObject({ status: "pending", next_attempt_at: at(2) });
  });

  it("stores an exported delivery with its event and attempts, its event once for all of its deliveries", async () => {
    const [one, two] = await addEndpoints(toTestEndpoint("we_01"), toTestEndpoint("we_02"));
    const event = toTestEvent("evt_01");
    const exported: DeliveryRecord[] = [one, two].map((endpoint) => ({
      ...toNewDelivery(event, endpoint, at(1)),
      status: "pending",
      attempts: [failedAttempt(1, at(1))],
      scheduled_attempts: 1,
      next_attempt_at: at(6),
    }));
    await database.transaction(async (tx) => {
      for (const d of exported) await deliveries.importDelivery(tx, d);
    });
    for (const d of exported) expect(await deliveries.get(database.db, d.id)).toEqual(d);
    expect(await database.db.selectFrom("events").select("id").execute()).toEqual([{ id: "evt_01" }]);
    expect(await claim("p1", at(5))).toEqual([]);
    expect((await claim("p1", at(6))).map((c) => c.delivery.id).sort()).toEqual(exported.map((d) => d.id).sort());
  });
});
