import { describe, expect, it } from "vitest";
import memoryDriver from "unstorage/drivers/memory";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { createManualClock } from "../deps.js";
import { applyInOrder, toStorage, type Stores } from "../storage/create-storage.js";
import type { FetchLike } from "./http-attempt.js";
import { createManualScheduler } from "./scheduler.js";
import { deliveryListSchema, endpointCreateSchema } from "./schemas.js";

/**
 * Memory stores whose data driver records every write and removal under `webhooks:`, and whose `batch`
 * records each group of them (in `groups`).
 */
function countingStores(log: string[], groups: string[][] = []): Stores {
  const inner = memoryDriver();
  const note = (op: string, key: string) => key.startsWith("webhooks:") && !key.startsWith("webhooks:endpoints") && log.push(`${op} ${key.split(":").slice(0, 2).join(":")}`);
  const data = toStorage({
    ...inner,
    setItem: (key, value, opts) => (note("set", key), inner.setItem!(key, value, opts)),
    removeItem: (key, opts) => (note("remove", key), inner.removeItem!(key, opts)),
  });
  const media = toStorage(memoryDriver());
  const batch: Stores["batch"] = async (ops) => {
    const from = log.length;
    await applyInOrder(data, ops);
    if (log.length > from) groups.push(log.slice(from));
  };
  return { kind: "memory", data, media, batch, dispose: async () => {} };
}

describe("storage writes of one delivery (memory)", () => {
  it("a delivery that succeeds at once costs the outbox entry, two delivery writes and the entry's removal, no marker", async () => {
    const clock = createManualClock("2026-05-01T08:00:00.000Z");
    const fetch: FetchLike = async (_url, init) => {
      const body = JSON.parse(String(init.body));
      return new Response(body.type === "webhook.verification" ? JSON.stringify({ challenge: body.data.challenge }) : "{}", { status: 200 });
    };
    const log: string[] = [];
    const groups: string[][] = [];
    const stores = countingStores(log, groups);
    const core = await createCore({ stores, clock, fetch, scheduler: createManualScheduler(clock), publicUrl: () => "http://lp.test" });
    const creds = await ensureDevCredentials(core.database, clock, core.ids);
    const endpoint = await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url: "https://r.example/hook", events: ["product.created"] }));
    expect(endpoint.status).toBe("active");
    log.length = 0;
    groups.length = 0;
    await core.products.create(creds.account_id, { title: "Counted", price: 1, product_type: "service" });
    await core.onIdle();
    expect(log).toEqual(["set webhooks:outbox", "set webhooks:deliveries", "set webhooks:deliveries", "remove webhooks:outbox"]);
    // The outbox entry is a group of its own (shared with events emitted at the same moment). The settled
    // record and the entry's removal are one group, the record first: a kill between them leaves the entry,
    // and its next fan-out finds the delivery settled.
    expect(groups).toEqual([["set webhooks:outbox"], ["set webhooks:deliveries"], ["set webhooks:deliveries", "remove webhooks:outbox"]]);
    const [delivery] = (await core.webhooks.endpoints.deliveries(creds.application_id, endpoint.id, deliveryListSchema.parse({}))).data;
    expect(delivery.status).toBe("succeeded");
    await core.close();
  });

  it("an event's entry goes once its last delivery is settled or marked: never before a retry's marker", async () => {
    const clock = createManualClock("2026-05-01T08:00:00.000Z");
    const fetch: FetchLike = async (url, init) => {
      const body = JSON.parse(String(init.body));
      if (body.type === "webhook.verification") return new Response(JSON.stringify({ challenge: body.data.challenge }), { status: 200 });
      return new Response("{}", { status: url.includes("down") ? 503 : 200 });
    };
    const log: string[] = [];
    const groups: string[][] = [];
    const stores = countingStores(log, groups);
    const core = await createCore({ stores, clock, fetch, scheduler: createManualScheduler(clock), publicUrl: () => "http://lp.test" });
    const creds = await ensureDevCredentials(core.database, clock, core.ids);
    for (const url of ["https://up.example/hook", "https://down.example/hook"]) {
      await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url, events: ["product.created"] }));
    }
    log.length = 0;
    await core.products.create(creds.account_id, { title: "Two ways", price: 1, product_type: "service" });
    await core.onIdle();
    expect(log.filter((line) => line === "remove webhooks:outbox")).toHaveLength(1);
    expect(log.indexOf("remove webhooks:outbox")).toBeGreaterThan(log.indexOf("set webhooks:pending"));
    expect(log.filter((line) => line === "set webhooks:deliveries")).toHaveLength(4);
    expect(await stores.data.getKeys("webhooks:outbox")).toEqual([]);
    expect(await stores.data.getKeys("webhooks:pending")).toHaveLength(1);
    await core.close();
  });
});
