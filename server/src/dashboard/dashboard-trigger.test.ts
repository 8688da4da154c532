import { readFileSync } from "node:fs";
import { EVENT_TYPES, type EventType } from "@lp/contract/events";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import trigger from "../../../fixtures/trigger.json";
import { createApp } from "../app.js";
import { createWebhookTestApp } from "../routes/webhooks-test-kit.js";
import { createDashboardHub } from "./hub.js";
import { sectionsOf, TRIGGER_SCENARIOS } from "./trigger-scenarios.js";

const HOST = "127.0.0.1:4010";
const APRON = readFileSync(new URL("../../../fixtures/images/apron.png", import.meta.url));

/** The `lp trigger` fixture's sections an event reads, its product's image files left out (as the console does). */
function fixtureOf(event: EventType): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const section of sectionsOf(TRIGGER_SCENARIOS[event])) out[section] = { ...(trigger as Record<string, Record<string, unknown>>)[section] };
  delete out.product?.images;
  return out;
}

/** The console's Send an event (`POST /_dashboard/api/trigger`) and image upload relay, over `app.request()`. */
describe.each(["memory", "sqlite"] as const)("dashboard trigger and upload (%s)", (storage) => {
  let w: Awaited<ReturnType<typeof createWebhookTestApp>>;
  let app: ReturnType<typeof createApp>["app"];
  let session: { cookie: string; csrf: string };
  let endpointId: string;

  beforeEach(async () => {
    w = await createWebhookTestApp({ storage });
    const hub = createDashboardHub();
    app = createApp({ core: w.core, settings: { simulate: true, adminKey: w.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub }).app;
    const res = await app.request(`/_dashboard/login?token=${hub.access.issueLogin()}`, { headers: { host: HOST } });
    const cookie = res.headers.get("set-cookie")!.split(";")[0];
    const page = await (await app.request("/_dashboard/", { headers: { host: HOST, cookie } })).text();
    session = { cookie, csrf: /name="lp-csrf" content="([^"]+)"/.exec(page)![1] };
    const receiver = await w.receiver();
    const made = await w.dev("POST", "", { url: `${receiver.url}/hooks`, events: [...EVENT_TYPES] });
    expect(made.status).toBe(201);
    endpointId = made.json.data.id;
  });
  afterEach(() => w.close());

  const dash = async (path: string, body: BodyInit | object, headers: Record<string, string> = {}) => {
    const raw = typeof body === "string" || body instanceof FormData;
    const res = await app.request(`/_dashboard/api${path}`, {
      method: "POST",
      headers: { host: HOST, cookie: session.cookie, "x-csrf-token": session.csrf, ...(raw ? {} : { "content-type": "application/json" }), ...headers },
      body: raw ? body : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  const deliveriesOf = async (event: string) => (await w.dev("GET", `/${endpointId}/deliveries?per_page=100&event_type=${event}`)).json.data as any[];

  it.each(EVENT_TYPES)("causes %s from the lp trigger fixture, and the subscribed endpoint gets exactly this run's event", async (event) => {
    const sent = await dash("/trigger", { event, account_id: w.creds.account_id, fixture: fixtureOf(event) });
    expect(sent.status, JSON.stringify(sent.json)).toBe(201);
    expect(sent.json.data.steps.map((s: any) => s.step)).toEqual(expect.arrayContaining(TRIGGER_SCENARIOS[event].steps));
    await w.settle();
    const { field, value } = sent.json.data.match;
    const ours = (await deliveriesOf(event)).filter((d) => d.payload.data[field] === value);
    expect(ours.map((d) => [d.event_type, d.status])).toEqual([[event, "succeeded"]]);
  });

  it("uses the edited fixture: the product is created with the edited body", async () => {
    const fixture = { product: { ...fixtureOf("product.created").product, title: "Edited Apron", price: 17 } };
    const sent = await dash("/trigger", { event: "product.created", account_id: w.creds.account_id, fixture });
    expect(sent.status).toBe(201);
    const product = await w.call("GET", `${w.account}/products/${sent.json.data.made.product_id}`);
    expect(product.json.data).toMatchObject({ title: "Edited Apron", price: 17 });
  });

  it("refuses what the catalogue or the fixture's shape does not allow, with a clear 400 and nothing made", async () => {
    const account_id = w.creds.account_id;
    const unknown = await dash("/trigger", { event: "product.exploded", account_id, fixture: {} });
    expect(unknown).toMatchObject({ status: 400, json: { error: { code: "validation_error" } } });
    expect(unknown.json.error.message).toContain("checkout.submitted");
    expect((await dash("/trigger", { event: "webhook.test", account_id, fixture: {} })).status).toBe(400);
    expect((await dash("/trigger", "{not json")).status).toBe(400);
    expect((await dash("/trigger", { event: "product.created", account_id, fixture: [] })).json.error.message).toContain("fixture must be");
    expect((await dash("/trigger", { event: "page.updated", account_id, fixture: { product: {}, page: {} } })).json.error.message).toContain("fixture.page_update");
    expect((await dash("/trigger", { event: "product.created", account_id, fixture: { product: {}, checkout: {} } })).json.error.message).toContain("not read by product.created");
    expect((await dash("/trigger", { event: "product.created", account_id: "../x", fixture: { product: {} } })).status).toBe(400);
    expect((await w.call("GET", `${w.account}/products`)).json.data).toEqual([]);
  });

  it("answers the API's refusal with its status, error and step, and runs nothing after it", async () => {
    const fixture = fixtureOf("page.created");
    fixture.page = { ...fixture.page, options: { language: 42 } };
    const refused = await dash("/trigger", { event: "page.created", account_id: w.creds.account_id, fixture });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: "validation_error", step: "page" });
    expect(refused.json.data.steps.map((s: any) => [s.step, s.status])).toEqual([["product", 201], ["page", 400]]);
    expect((await w.call("GET", `${w.account}/pages`)).json.data).toEqual([]);

    // A checkout the live site refuses (a size it does not offer) is reported with the page's fields.
    const checkout = fixtureOf("checkout.submitted");
    checkout.checkout = { ...checkout.checkout, size: "XXL" };
    const rejected = await dash("/trigger", { event: "checkout.submitted", account_id: w.creds.account_id, fixture: checkout });
    expect(rejected.status).toBe(422);
    expect(rejected.json.error).toMatchObject({ code: "checkout_rejected", step: "checkout" });
    expect(rejected.json.error.message).toContain("size (select, required: S/M | L/XL)");
  });

  it("uploads an image file to a product through the relay; the API's bounds and refusals come back as they are", async () => {
    const product = await w.core.products.create(w.creds.account_id, { title: "Board", price: 9, product_type: "physical" });
    const path = `${w.account}/products/${product.id}`;
    const form = (bytes: Uint8Array<ArrayBuffer> | Buffer, name: string, type: string) => {
      const f = new FormData();
      f.append("images", new Blob([new Uint8Array(bytes)], { type }), name);
      return f;
    };
    const up = await dash(`/upload?method=PATCH&path=${encodeURIComponent(path)}`, form(APRON, "apron.png", "image/png"));
    expect(up.status).toBe(200);
    expect(up.json.data.images).toHaveLength(1);
    const media = await app.request(new URL(up.json.data.images[0].url).pathname);
    expect(media.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await media.arrayBuffer()).equals(APRON)).toBe(true);

    // Not an image, whatever its name says: the API sniffs the bytes.
    const fake = await dash(`/upload?method=PATCH&path=${encodeURIComponent(path)}`, form(new TextEncoder().encode("hello"), "fake.png", "image/png"));
    expect(fake.status).toBeGreaterThanOrEqual(400);
    expect(fake.status).toBeLessThan(500);
    expect(fake.json.error.code).toBeTruthy();
    // Over the API's 10 MiB per image.
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(APRON.subarray(0, 8));
    expect((await dash(`/upload?method=PATCH&path=${encodeURIComponent(path)}`, form(big, "big.png", "image/png"))).json.error.code).toBe("payload_too_large");
    expect((await w.call("GET", path)).json.data.images).toHaveLength(1);

    // Only the products routes that take files, only multipart, and only with the CSRF token.
    expect((await dash(`/upload?method=PATCH&path=${encodeURIComponent(`${w.account}/pages/${product.id}`)}`, form(APRON, "a.png", "image/png"))).status).toBe(400);
    expect((await dash(`/upload?method=DELETE&path=${encodeURIComponent(path)}`, form(APRON, "a.png", "image/png"))).status).toBe(400);
    expect((await dash(`/upload?method=PATCH&path=${encodeURIComponent(path)}`, "{}", { "content-type": "application/json" })).status).toBe(415);
    expect((await dash(`/upload?method=PATCH&path=${encodeURIComponent(path)}`, form(APRON, "a.png", "image/png"), { "x-csrf-token": "wrong" })).status).toBe(403);
  });
});
