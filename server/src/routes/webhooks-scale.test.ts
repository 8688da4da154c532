import { endpointCreateSchema, type FetchLike } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
import { FAN_OUT_BATCH } from "../../../core/src/webhooks/event-outbox.js";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";

/** Receivers that answer every challenge and record which endpoint each event reached. */
function fakeReceivers() {
  const events: string[] = [];
  const fetch: FetchLike = async (url, init) => {
    const body = JSON.parse(String(init.body));
    if (body.type === "webhook.verification") return new Response(JSON.stringify({ challenge: body.data.challenge }), { status: 200 });
    events.push(url);
    return new Response("{}", { status: 200 });
  };
  return { events, fetch };
}

describe("webhook endpoints at scale (DESIGN §14)", () => {
  let t: WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });

  it("caps endpoints per application at 100 by default: 403 quota_exceeded with the limit and the count", async () => {
    const net = fakeReceivers();
    t = await createWebhookTestApp({ coreDeps: { fetch: net.fetch } });
    for (let i = 0; i < 100; i++) expect((await t.dev("POST", "", { url: `https://r.example/${i}`, events: ["product.created"] })).status).toBe(201);
    const over = await t.dev("POST", "", { url: "https://r.example/over", events: ["product.created"] });
    expect(over.status).toBe(403);
    expect(over.json.error).toMatchObject({ code: "quota_exceeded", details: { limit: 100, used: 100 } });
    expect((await t.dev("GET", "?per_page=100")).json.pagination.has_more).toBe(false);
  });

  it("counts per application, and frees a place when an endpoint is deleted (maxEndpoints)", async () => {
    const net = fakeReceivers();
    t = await createWebhookTestApp({ coreDeps: { fetch: net.fetch, webhooks: { maxEndpoints: 2 } } });
    const made = await Promise.all([1, 2, 3].map((i) => t.dev("POST", "", { url: `https://r.example/${i}`, events: ["product.created"] })));
    expect(made.map((r) => r.status).sort()).toEqual([201, 201, 403]);
    const partner = (await t.admin("POST", "/_admin/apps", { name: "Partner", account_ids: [t.creds.account_id] })).json.data;
    const partnerAuth = t.basicOf(partner.application_id, partner.client_secret);
    expect((await t.dev("POST", "", { url: "https://p.example/1", events: ["product.created"] }, partnerAuth)).status).toBe(201);

    const first = made.find((r) => r.status === 201)!.json.data;
    expect((await t.dev("DELETE", `/${first.id}`)).status).toBe(204);
    expect((await t.dev("POST", "", { url: "https://r.example/again", events: ["product.created"] })).status).toBe(201);
    expect((await t.dev("POST", "", { url: "https://r.example/more", events: ["product.created"] })).json.error.details).toEqual({ limit: 2, used: 2 });
  });

  it("fans an event out to many endpoints in batches, leaving the event loop free, and still delivers to each", async () => {
    // Three batches, more than the one or two a turn of the event loop may see stored and sent; made through the
    // core (the test above makes them through the API). A thousand made through the API took most of a 20 s test
    // on Redis and said nothing more; bench/webhooks-fanout.ts measures thousands.
    const N = FAN_OUT_BATCH * 2 + 50;
    const net = fakeReceivers();
    t = await createWebhookTestApp({ coreDeps: { fetch: net.fetch, webhooks: { maxEndpoints: N } } });
    for (let i = 0; i < N; i += 50) {
      const made = Array.from({ length: 50 }, (_, j) => endpointCreateSchema.parse({ url: `https://r.example/${i + j}`, events: ["product.created"] }));
      await Promise.all(made.map((input) => t.core.webhooks.endpoints.create(t.creds.application_id, input)));
    }
    const product = await t.product("Everyone");
    expect(product.title).toBe("Everyone");
    // By the next turn of the event loop (when a waiting request would be served), the fan-out has
    // stored and sent one batch or two, not all of them: it does not hold the loop.
    const sentByNextTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(net.events.length)));
    expect(sentByNextTurn).toBeLessThan(N);

    await t.settle();
    expect(net.events).toHaveLength(N);
    expect(new Set(net.events).size).toBe(N);
    expect(await t.core.stores.data.getKeys("webhooks:outbox")).toEqual([]);
    expect(await t.core.stores.data.getKeys("webhooks:pending")).toEqual([]);
  });
});
