import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiver, type Receiver } from "@lp/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { openDatabase, type Database } from "../db/database.js";
import { createManualClock, type ManualClock } from "../deps.js";
import type { FetchLike } from "./http-attempt.js";
import { createManualScheduler } from "./scheduler.js";
import { deliveryListSchema, endpointCreateSchema, endpointUpdateSchema } from "./schemas.js";

/** Events the receiver accepted, leaving out verification challenges. */
const eventsOf = (receiver: Receiver) => receiver.events.filter((e) => e.type !== "webhook.verification");
const product = (title: string) => ({ title, price: 5, product_type: "service" as const });

describe("webhook durability across restarts (SQLite storage)", () => {
  let dir: string;
  let clock: ManualClock;
  let receiver: Receiver;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "lp-webhooks-"));
    clock = createManualClock("2026-05-01T08:00:00.000Z");
    receiver = await createReceiver({ now: () => clock.now() });
  });
  afterEach(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A core over the same folder, as `lp serve` builds one at each start. */
  async function boot(fetch?: FetchLike) {
    // The tables are kept in the folder too, as `lp serve` keeps them.
    const database = await openDatabase({ kind: "sqlite", file: join(dir, "lp.db") });
    const scheduler = createManualScheduler(clock);
    const core = await createCore({ database, clock, scheduler, fetch, publicUrl: () => "http://lp.test" });
    const creds = await ensureDevCredentials(core.database, clock, core.ids);
    return { core, database, scheduler, creds, stop: async () => (await core.close(), await database.close()) };
  }

  /** The deliveries as stored: status, attempts made, and whether one is due. */
  const stored = async (database: Database) =>
    (await database.db.selectFrom("webhook_deliveries as d").select((eb) => ["d.status", "d.due_at", "d.lease_owner", eb.selectFrom("delivery_attempts as a").whereRef("a.delivery_id", "=", "d.id").select(eb.fn.countAll<number>().as("n")).as("attempts")]).orderBy("d.created_at").orderBy("d.id").execute()).map((r) => ({
      status: r.status,
      attempts: Number(r.attempts),
      due: r.due_at !== null,
      leased: r.lease_owner !== null,
    }));

  it("delivers, after a restart, what was pending or not yet fanned out, exactly once each", async () => {
    let down = false;
    const flaky: FetchLike = (url, init) => (down ? Promise.reject(new TypeError("fetch failed")) : globalThis.fetch(url, init));
    const first = await boot(flaky);
    const created = await first.core.webhooks.endpoints.create(first.creds.application_id, endpointCreateSchema.parse({ url: receiver.url, events: ["product.created"] }));
    expect(created.status).toBe("active");
    receiver.setSecret(created.secret);

    down = true;
    await first.core.products.create(first.creds.account_id, product("Failed once"));
    await first.core.onIdle();
    const [failed] = (await first.core.webhooks.endpoints.deliveries(first.creds.application_id, created.id, deliveryListSchema.parse({}))).data;
    expect(failed).toMatchObject({ status: "pending", attempts: [{ outcome: "failed", error: expect.stringContaining("fetch failed") }] });

    // Closed before delivery: these events and their deliveries are stored, and nothing more happens in this process.
    await first.core.close();
    await first.core.products.create(first.creds.account_id, product("After close 1"));
    await first.core.products.create(first.creds.account_id, product("After close 2"));
    await first.core.webhooks.onIdle();
    expect(await stored(first.database)).toEqual([
      { status: "pending", attempts: 1, due: true, leased: false },
      { status: "pending", attempts: 0, due: true, leased: false },
      { status: "pending", attempts: 0, due: true, leased: false },
    ]);
    await first.database.close();
    expect(eventsOf(receiver)).toEqual([]);

    const second = await boot();
    await second.core.onIdle();
    await second.scheduler.advanceAsync(10_000, () => second.core.onIdle());
    const titles = eventsOf(receiver).map((e) => (e.data as { title: string }).title).sort();
    expect(titles).toEqual(["After close 1", "After close 2", "Failed once"]);
    expect(receiver.deliveries.filter((d) => !d.challenge).every((d) => d.verified)).toBe(true);
    const deliveries = (await second.core.webhooks.endpoints.deliveries(second.creds.application_id, created.id, deliveryListSchema.parse({}))).data;
    expect(deliveries.map((d) => d.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
    expect((await stored(second.database)).filter((d) => d.due || d.leased)).toEqual([]);
    await second.stop();

    // A third start finds nothing left to do and sends nothing twice.
    const third = await boot();
    await third.core.onIdle();
    await third.scheduler.advanceAsync(86_400_000, () => third.core.onIdle());
    expect(receiver.deliveries.filter((d) => !d.challenge)).toHaveLength(3);
    await third.stop();
  });

  it("keeps the circuit and held deliveries of a paused endpoint across a restart", async () => {
    const first = await boot();
    const created = await first.core.webhooks.endpoints.create(first.creds.application_id, endpointCreateSchema.parse({ url: receiver.url, events: ["product.created"] }));
    receiver.setSecret(created.secret);
    await first.core.webhooks.endpoints.update(first.creds.application_id, created.id, endpointUpdateSchema.parse({ status: "paused" }));
    await first.core.products.create(first.creds.account_id, product("Held"));
    await first.core.onIdle();
    expect(await stored(first.database)).toEqual([{ status: "pending", attempts: 0, due: false, leased: false }]);
    await first.stop();

    const second = await boot();
    await second.core.onIdle();
    expect(eventsOf(receiver)).toEqual([]);
    const verified = await second.core.webhooks.endpoints.verify(second.creds.application_id, created.id);
    expect(verified.endpoint.status).toBe("active");
    await second.core.onIdle();
    expect(eventsOf(receiver).map((e) => e.type)).toEqual(["product.created"]);
    await second.stop();
  });

  it("attempts at start, with the same webhook-id, a delivery a killed process was attempting (its lease ended, the data dir being one process's)", async () => {
    const first = await boot();
    const created = await first.core.webhooks.endpoints.create(first.creds.application_id, endpointCreateSchema.parse({ url: receiver.url, events: ["product.created"] }));
    receiver.setSecret(created.secret);
    await first.core.close();
    await first.core.products.create(first.creds.account_id, product("Orphaned"));
    await first.core.webhooks.onIdle();
    // As a process killed in the middle of the attempt leaves it: claimed, its lease running for 30 s more.
    const lapse = new Date(clock.now().getTime() + 30_000).toISOString();
    await first.database.db.updateTable("webhook_deliveries").set({ lease_owner: "killed-process", lease_expires_at: lapse }).execute();
    await first.database.close();

    const startedAt = clock.now().toISOString();
    const second = await boot();
    await second.core.onIdle();
    const [delivery] = (await second.core.webhooks.endpoints.deliveries(second.creds.application_id, created.id, deliveryListSchema.parse({}))).data;
    expect(delivery).toMatchObject({ status: "succeeded", attempts: [{ number: 1, started_at: startedAt }] });
    expect(receiver.deliveries.filter((d) => !d.challenge).map((d) => d.webhookId)).toEqual([delivery.id]);
    expect(await stored(second.database)).toEqual([{ status: "succeeded", attempts: 1, due: false, leased: false }]);
    await second.stop();
  });

  it("close() finishes attempts in flight, leaves queued ones stored, and the next start sends them", async () => {
    const slow = await createReceiver({ now: () => clock.now(), delayMs: 20 });
    try {
      const first = await boot();
      const created = await first.core.webhooks.endpoints.create(first.creds.application_id, endpointCreateSchema.parse({ url: slow.url, events: ["product.created"], concurrency_limit: 1 }));
      for (let i = 0; i < 6; i++) await first.core.products.create(first.creds.account_id, product(`P${i}`));
      // Stopped while most of the six are still queued behind the one in flight (limit 1, slow receiver).
      await first.stop();

      const second = await boot();
      await second.core.onIdle();
      const titles = eventsOf(slow).map((e) => (e.data as { title: string }).title).sort();
      expect(titles).toEqual(["P0", "P1", "P2", "P3", "P4", "P5"]);
      expect(slow.deliveries.filter((d) => !d.challenge)).toHaveLength(6);
      const statuses = (await second.core.webhooks.endpoints.deliveries(second.creds.application_id, created.id, deliveryListSchema.parse({}))).data.map((d) => d.status);
      expect(statuses).toEqual(Array(6).fill("succeeded"));
      await second.stop();
    } finally {
      await slow.close();
    }
  });
});
