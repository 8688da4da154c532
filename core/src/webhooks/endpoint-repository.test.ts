import { beforeEach, expect, it } from "vitest";
import type { Database } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { createUnreadableRows } from "../db/unreadable-rows.js";
import { describeDatabases } from "../testing/databases.js";
import { createDeliveryClaims } from "./delivery-claims.js";
import { createDeliveryRepository } from "./delivery-repository.js";
import { createEndpointRepository, type EndpointRepository } from "./endpoint-repository.js";
import { circuitAfterFailure } from "./retry-policy.js";
import { at, seedApplication, toTestEndpoint, toTestEvent } from "./webhook-rows.fixture.js";

describeDatabases("the webhook endpoint repository", ({ open }) => {
  let database: Database;
  let endpoints: EndpointRepository;
  beforeEach(async () => {
    database = await open();
    endpoints = createEndpointRepository(database.dialect);
    await seedApplication(database.db, "app_1", ["acct_1", "acct_2"]);
    await seedApplication(database.db, "app_2", ["acct_2"]);
  });
  const insert = (...records: ReturnType<typeof toTestEndpoint>[]) => database.transaction(async (tx) => {
    for (const record of records) await endpoints.insert(tx, record);
  });

  it("stores an endpoint whole and reads it back, to its own application only", async () => {
    const record = toTestEndpoint("we_01", {
      events: ["product.updated", "page.created", "product.created"],
      status: "disabled",
      disabled_reason: "circuit_breaker",
      previous_secret: "whsec_old",
      previous_secret_expires_at: at(30),
      circuit: { state: "open", consecutive_failures: 7, reopen_count: 2, opens_until: at(5) },
      last_verification: { outcome: "failed", status_code: 500, latency_ms: 12, error: "answered 500", at: at(0, 5) },
    });
    await insert(record);
    expect(await endpoints.get(database.db, "we_01")).toEqual(record);
    expect(await endpoints.get(database.db, "we_01", "app_1")).toEqual(record);
    expect(await endpoints.get(database.db, "we_01", "app_2")).toBeNull();
    expect(await endpoints.get(database.db, "we_02")).toBeNull();
  });

  it("reads a damaged endpoint as UnreadableRowError naming it; lists and fan-outs leave it out, named once", async () => {
    const lines: string[] = [];
    endpoints = createEndpointRepository(database.dialect, createUnreadableRows({ where: "the test database", log: (line) => lines.push(line) }));
    await insert(toTestEndpoint("we_01", { created_at: at(1) }), toTestEndpoint("we_02", { created_at: at(2) }));
    // JSON either engine keeps (PostgreSQL checks only that a JSON column holds JSON).
    await database.db.updateTable("webhook_endpoints").set({ last_verification: '{"outcome":"maybe"}' }).where("id", "=", "we_02").execute();
    const audience = { type: "product.created", environment: "production" as const, account_id: "acct_1" };
    for (let i = 0; i < 2; i++) {
      await expect(endpoints.get(database.db, "we_02")).rejects.toMatchObject({ code: "record_unreadable", details: { resource: "webhook endpoint", id: "we_02" } });
      expect((await endpoints.list(database.db, "app_1", { limit: 10 })).items.map((e) => e.id)).toEqual(["we_01"]);
      expect((await endpoints.subscribers(database.db, audience)).map((e) => e.id)).toEqual(["we_01"]);
    }
    expect(lines).toEqual([expect.stringMatching(/^storage: unreadable row webhook_endpoints\/we_02 in the test database: last_verification.outcome is "maybe", not one of succeeded, failed; /)]);
  });

  it("refuses an endpoint of an application that does not exist", async () => {
    const error = await insert(toTestEndpoint("we_01", { application_id: "app_none" })).catch((e: unknown) => e);
    expect(isForeignKeyViolation(error)).toBe(true);
    expect(await endpoints.get(database.db, "we_01")).toBeNull();
  });

  it("lists an application's endpoints newest first, a page at a time, ties broken by id", async () => {
    await insert(
      toTestEndpoint("we_01", { created_at: at(1) }),
      toTestEndpoint("we_02", { created_at: at(2) }),
      toTestEndpoint("we_03", { created_at: at(2) }),
      toTestEndpoint("we_04", { created_at: at(3) }),
      toTestEndpoint("we_05", { created_at: at(9), application_id: "app_2" }),
    );
    const first = await endpoints.list(database.db, "app_1", { limit: 2 });
    expect(first.items.map((e) => e.id)).toEqual(["we_04", "we_03"]);
    expect(first.hasMore).toBe(true);
    expect(first.items[0].events).toEqual(["product.created", "product.updated"]);
    const last = first.items.at(-1)!;
    const second = await endpoints.list(database.db, "app_1", { limit: 2, after: { value: last.created_at, id: last.id } });
    expect(second.items.map((e) => e.id)).toEqual(["we_02", "we_01"]);
    expect(second.hasMore).toBe(false);
    expect((await endpoints.list(database.db, "app_2", { limit: 10 })).items.map((e) => e.id)).toEqual(["we_05"]);
  });

  it("changes only what it is given, and replaces the subscriptions whole", async () => {
    await insert(toTestEndpoint("we_01"));
    const changed = await database.transaction((tx) =>
      endpoints.update(tx, "we_01", {
        url: "https://receiver.test/new",
        status: "pending_verification",
        events: ["deployment.failed", "page.deleted"],
        secret: "whsec_new",
        previous_secret: "whsec_we_01",
        previous_secret_expires_at: at(50),
        circuit: { state: "half_open", consecutive_failures: 5, reopen_count: 1, opens_until: at(2) },
        last_verification: { outcome: "succeeded", status_code: 200, latency_ms: 3, error: null, at: at(4) },
        concurrency_limit: 9,
        updated_at: at(4),
      }),
    );
    const expected = {
      ...toTestEndpoint("we_01"),
      url: "https://receiver.test/new",
      status: "pending_verification",
      events: ["deployment.failed", "page.deleted"],
      secret: "whsec_new",
      previous_secret: "whsec_we_01",
      previous_secret_expires_at: at(50),
      circuit: { state: "half_open", consecutive_failures: 5, reopen_count: 1, opens_until: at(2) },
      last_verification: { outcome: "succeeded", status_code: 200, latency_ms: 3, error: null, at: at(4) },
      concurrency_limit: 9,
      updated_at: at(4),
    };
    expect(changed).toEqual(expected);
    expect(await endpoints.get(database.db, "we_01")).toEqual(expected);
    // Events alone, and a change of nothing, leave every other column.
    expect(await database.transaction((tx) => endpoints.update(tx, "we_01", { events: ["product.deleted"] }))).toEqual({ ...expected, events: ["product.deleted"] });
    expect(await database.transaction((tx) => endpoints.update(tx, "we_01", { last_verification: null, disabled_reason: null }))).toEqual({ ...expected, events: ["product.deleted"], last_verification: null });
    expect(await database.transaction((tx) => endpoints.update(tx, "we_none", { events: ["product.deleted"] }))).toBeNull();
    expect(await database.transaction((tx) => endpoints.update(tx, "we_none", { status: "paused" }))).toBeNull();
  });

  it("rolls a change of the subscriptions back with its transaction", async () => {
    await insert(toTestEndpoint("we_01"));
    await expect(
      database.transaction(async (tx) => {
        await endpoints.update(tx, "we_01", { events: ["page.created"], status: "paused" });
        throw new Error("the caller's change failed");
      }),
    ).rejects.toThrow("the caller's change failed");
    expect(await endpoints.get(database.db, "we_01")).toEqual(toTestEndpoint("we_01"));
  });

  it("applies changes of one endpoint's circuit one after another under its lock", async () => {
    await insert(toTestEndpoint("we_01"));
    // Twelve failures recorded at once, each a read-change-write: none is lost.
    await Promise.all(
      Array.from({ length: 12 }, () =>
        database.transaction(async (tx) => {
          const current = (await endpoints.lock(tx, "we_01"))!;
          const { circuit } = circuitAfterFailure(current.circuit, Date.parse(at(3)), false);
          await endpoints.update(tx, "we_01", { circuit });
        }),
      ),
    );
    const { circuit } = (await endpoints.get(database.db, "we_01"))!;
    expect(circuit).toEqual({ state: "open", consecutive_failures: 12, reopen_count: 0, opens_until: "2026-03-01T10:03:30.000Z" });
    expect(await database.transaction((tx) => endpoints.lock(tx, "we_none"))).toBeNull();
  });

  it("counts an application's endpoints one create at a time, so a cap holds", async () => {
    const cap = 3;
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        database.transaction(async (tx) => {
          if ((await endpoints.countLocked(tx, "app_1")) >= cap) return false;
          await endpoints.insert(tx, toTestEndpoint(`we_${i}`));
          return true;
        }),
      ),
    );
    expect(made.filter(Boolean).length).toBe(cap);
    expect((await endpoints.list(database.db, "app_1", { limit: 100 })).items.length).toBe(cap);
    expect(await database.transaction((tx) => endpoints.countLocked(tx, "app_2"))).toBe(0);
  });

  it("finds an event's endpoints by type, environment and the accounts their application is installed on", async () => {
    await insert(
      toTestEndpoint("we_01"),
      toTestEndpoint("we_02", { events: ["page.created"] }),
      toTestEndpoint("we_03", { environment: "test" }),
      toTestEndpoint("we_04", { application_id: "app_2", created_at: at(1) }),
      toTestEndpoint("we_05", { status: "paused", created_at: at(2) }),
    );
    const ids = async (type: string, account_id: string | null, environment: "production" | "test" = "production") =>
      (await endpoints.subscribers(database.db, { type, environment, account_id })).map((e) => e.id);
    // app_2 is installed on acct_2 only; the status is the fan-out's to apply (a paused endpoint holds its deliveries).
    expect(await ids("product.created", "acct_1")).toEqual(["we_01", "we_05"]);
    expect(await ids("product.created", "acct_2")).toEqual(["we_01", "we_04", "we_05"]);
    expect(await ids("page.created", "acct_1")).toEqual(["we_02"]);
    expect(await ids("product.created", "acct_1", "test")).toEqual(["we_03"]);
    expect(await ids("product.deleted", "acct_1")).toEqual([]);
    expect(await ids("product.created", null)).toEqual([]);
    const [found] = await endpoints.subscribers(database.db, { type: "page.created", environment: "production", account_id: "acct_2" });
    expect(found).toEqual(toTestEndpoint("we_02", { events: ["page.created"] }));
  });

  it("deletes an endpoint with its subscriptions, deliveries and attempts, for its own application only", async () => {
    const deliveries = createDeliveryRepository();
    const claims = createDeliveryClaims(database.dialect);
    await insert(toTestEndpoint("we_01"), toTestEndpoint("we_02"));
    const [first] = await database.transaction((tx) => deliveries.recordEvent(tx, toTestEvent("evt_01"), [toTestEndpoint("we_01"), toTestEndpoint("we_02")]));
    await database.transaction(async (tx) => {
      await claims.claimDue(tx, { now: at(1), owner: "p1", leaseUntil: at(2), limit: 10 });
      await claims.recordAttempt(tx, first.id, "p1", { number: 1, trigger: "scheduled", started_at: at(1), status_code: 200, latency_ms: 5, outcome: "succeeded", error: null, response_body: null, truncated: false }, { ...first, status: "succeeded", next_attempt_at: null, scheduled_attempts: 1, updated_at: at(1) });
    });
    expect(await endpoints.remove(database.db, "we_01", "app_2")).toBe(false);
    expect(await endpoints.remove(database.db, "we_01", "app_1")).toBe(true);
    expect(await endpoints.remove(database.db, "we_01")).toBe(false);
    expect(await endpoints.get(database.db, "we_01")).toBeNull();
    expect(await database.db.selectFrom("webhook_endpoint_events").select("endpoint_id").distinct().execute()).toEqual([{ endpoint_id: "we_02" }]);
    expect(await database.db.selectFrom("webhook_deliveries").select("endpoint_id").execute()).toEqual([{ endpoint_id: "we_02" }]);
    expect(await database.db.selectFrom("delivery_attempts").selectAll().execute()).toEqual([]);
  });

  it("goes with its application", async () => {
    await insert(toTestEndpoint("we_01"), toTestEndpoint("we_02", { application_id: "app_2" }));
    await database.db.deleteFrom("applications").where("application_id", "=", "app_1").execute();
    expect(await endpoints.get(database.db, "we_01")).toBeNull();
    expect((await endpoints.get(database.db, "we_02"))?.application_id).toBe("app_2");
  });
});
