import { describe, expect, it } from "vitest";
import memoryDriver from "unstorage/drivers/memory";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { createManualClock } from "../deps.js";
import { applyInOrder, toStorage, type Stores } from "../storage/create-storage.js";
import type { FetchLike } from "./http-attempt.js";
import { createManualScheduler } from "./scheduler.js";
import { deliveryListSchema, endpointCreateSchema } from "./schemas.js";

/** Memory stores whose data driver records every write and removal under `webhooks:`. */
function countingStores(log: string[]): Stores {
  const inner = memoryDriver();
  const note = (op: string, key: string) => key.startsWith("webhooks:") && !key.startsWith("webhooks:endpoints") && log.push(`${op} ${key.split(":").slice(0, 2).join(":")}`);
  const data = toStorage({
    ...inner,
    setItem: (key, value, opts) => (note("set", key), inner.setItem!(key, value, opts)),
    removeItem: (key, opts) => (note("remove", key), inner.removeItem!(key, opts)),
  });
  const media = toStorage(memoryDriver());
  return { kind: "memory", data, media, batch: (ops) => applyInOrder(data, ops), dispose: async () => {} };
}

describe("storage writes of one delivery (memory)", () => {
  it("a delivery that succeeds at once costs the outbox entry, two delivery writes and the entry's removal, no marker", async () => {
    const clock = createManualClock("2026-05-01T08:00:00.000Z");
    const fetch: FetchLike = async (_url, init) => {
      const body = JSON.parse(String(init.body));
      return new Response(body.type === "webhook.verification" ? JSON.stringify({ challenge: body.data.challenge }) : "{}", { status: 200 });
    };
    const log: string[] = [];
    const stores = countingStores(log);
    const core = await createCore({ stores, clock, fetch, scheduler: createManualScheduler(clock), publicUrl: () => "http://lp.test" });
    const creds = await ensureDevCredentials(stores.data, clock, core.ids);
    const endpoint = await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url: "https://r.example/hook", events: ["product.created"] }));
    expect(endpoint.status).toBe("active");
    log.length = 0;
    await core.products.create(creds.account_id, { title: "Counted", price: 1, product_type: "service" });
    await core.onIdle();
    expect(log).toEqual(["set webhooks:outbox", "set webhooks:deliveries", "set webhooks:deliveries", "remove webhooks:outbox"]);
    const [delivery] = (await core.webhooks.endpoints.deliveries(creds.application_id, endpoint.id, deliveryListSchema.parse({}))).data;
    expect(delivery.status).toBe("succeeded");
    await core.close();
  });
});
