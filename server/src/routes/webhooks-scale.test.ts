import { endpointCreateSchema, type FetchLike } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
import { DELIVERY_CONCURRENCY } from "../../../core/src/webhooks/delivery-worker.js";
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

  it("fans an event out to many endpoints with its change, and delivers to each, a bounded number at a time", async () => {
    // Several rounds of the worker's attempts in flight; made through the core (the test above makes them
    // through the API). bench/webhooks-fanout.ts measures thousands.
    const N = DELIVERY_CONCURRENCY * 3 + 10;
    const net = fakeReceivers();
    let inFlight = 0;
    let most = 0;
    const fetch: FetchLike = async (url, init) => {
      most = Math.max(most, ++inFlight);
      // Held for a turn of the event loop, so attempts overlap as far as the worker lets them.
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return net.fetch(url, init);
    };
    t = await createWebhookTestApp({ coreDeps: { fetch, webhooks: { maxEndpoints: N } } });
    for (let i = 0; i < N; i += 50) {
      const made = Array.from({ length: Math.min(50, N - i) }, (_, j) => endpointCreateSchema.parse({ url: `https://r.example/${i + j}`, events: ["product.created"] }));
      await Promise.all(made.map((input) => t.core.webhooks.endpoints.create(t.creds.application_id, input)));
    }
    most = 0;
    const product = await t.product("Everyone");
    expect(product.title).toBe("Everyone");
    // Every delivery was stored with the product, in its transaction.
    const { n } = await t.core.database.db.selectFrom("webhook_deliveries").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    expect(Number(n)).toBe(N);

    await t.settle();
    expect(net.events).toHaveLength(N);
    expect(new Set(net.events).size).toBe(N);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(DELIVERY_CONCURRENCY);
    const pending = await t.core.database.db.selectFrom("webhook_deliveries").select("id").where("status", "!=", "succeeded").execute();
    expect(pending).toEqual([]);
  });
});
