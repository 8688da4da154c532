import { beforeEach, expect, it } from "vitest";
import type { Database } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { describeDatabases } from "../testing/databases.js";
import { failedAttempt, createDeliverySteps, type DeliverySteps } from "./delivery-steps.fixture.js";
import { toDeliveryId } from "../ids.js";
import type { DeliveryRecord } from "./records.js";
import { at, seedApplication, toTestEndpoint, toTestEvent } from "./webhook-rows.fixture.js";

describeDatabases("the webhook delivery repository", ({ open }) => {
  let database: Database;
  let endpoints: DeliverySteps["endpoints"];
  let deliveries: DeliverySteps["deliveries"];
  let addEndpoints: DeliverySteps["addEndpoints"];
  let fanOut: DeliverySteps["fanOut"];
  let claim: DeliverySteps["claim"];
  let fail: DeliverySteps["fail"];
  beforeEach(async () => {
    database = await open();
    ({ endpoints, deliveries, addEndpoints, fanOut, claim, fail } = createDeliverySteps(database));
    await seedApplication(database.db, "app_1", ["acct_1"]);
  });

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
});
