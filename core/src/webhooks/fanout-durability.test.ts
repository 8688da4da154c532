import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { openDatabase } from "../db/database.js";
import { createManualClock } from "../deps.js";
import { createStores } from "../storage/create-storage.js";
import { FAN_OUT_BATCH } from "./event-outbox.js";
import type { FetchLike } from "./http-attempt.js";
import { createManualScheduler } from "./scheduler.js";
import { endpointCreateSchema } from "./schemas.js";

describe("a fan-out in batches stays durable (SQLite storage)", () => {
  let dir: string;
  const clock = createManualClock("2026-05-01T08:00:00.000Z");
  const events: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    const body = JSON.parse(String(init.body));
    if (body.type === "webhook.verification") return new Response(JSON.stringify({ challenge: body.data.challenge }), { status: 200 });
    events.push(url);
    return new Response("{}", { status: 200 });
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lp-fanout-"));
    events.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function boot() {
    const stores = createStores("sqlite", dir);
    // The tables are kept in the folder too, as `lp serve` keeps them.
    const database = await openDatabase({ kind: "sqlite", file: join(dir, "tables.db") });
    const core = await createCore({ stores, database, clock, fetch, scheduler: createManualScheduler(clock), publicUrl: () => "http://lp.test", webhooks: { maxEndpoints: 1000 } });
    const creds = await ensureDevCredentials(core.database, clock, core.ids);
    return { core, stores, creds, stop: async () => (await core.close(), await stores.dispose(), await database.close()) };
  }

  it("finishes after a restart a fan-out stopped between batches, each endpoint exactly once", async () => {
    const N = FAN_OUT_BATCH * 2 + 50;
    const first = await boot();
    for (let i = 0; i < N; i++) await first.core.webhooks.endpoints.create(first.creds.application_id, endpointCreateSchema.parse({ url: `https://r.example/${i}`, events: ["product.created"] }));
    await first.core.products.create(first.creds.account_id, { title: "Accepted", price: 1, product_type: "service" });
    // Stopped while the fan-out is on its first batch: the event stays in the outbox.
    await first.stop();
    expect(events.length).toBeLessThan(N);
    const stopped = createStores("sqlite", dir);
    expect(await stopped.data.getKeys("webhooks:outbox")).toHaveLength(1);
    await stopped.dispose();

    const second = await boot();
    await second.core.onIdle();
    expect(events).toHaveLength(N);
    expect(new Set(events).size).toBe(N);
    expect(await second.stores.data.getKeys("webhooks:outbox")).toEqual([]);
    expect(await second.stores.data.getKeys("webhooks:pending")).toEqual([]);
    await second.stop();
  });
});
