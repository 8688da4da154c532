import { COLOR_PATTERN } from "@lp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";
import { requestValidators } from "../testing/openapi-ajv.js";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";

const products = "/v1/accounts/{account_id}/products";
const pages = "/v1/accounts/{account_id}/pages";
const page = "/v1/accounts/{account_id}/pages/{id}";
const endpoints = "/v1/developer/webhook-endpoints";
const inline = { title: "Lamp", description: "A desk lamp.", price: 40, product_type: "physical" };

/** Each request below was once admitted by the document and refused by the server (issue 14). */
describe("the document refuses what the server refuses", () => {
  let t: TestApp;
  let doc: ReturnType<typeof requestValidators>;
  let served: any;
  beforeAll(async () => {
    t = await createTestApp();
    served = (await t.call("GET", "/v1/openapi.json", { token: null })).json;
    doc = requestValidators(served);
  });
  afterAll(async () => t.close());

  it("impossible dates in created_after / created_before", async () => {
    for (const bad of ["2026-02-30", "0000-00-00", "2026-13-01", "2026-02-28T10:00Z"]) {
      expect(doc.query("GET", pages, "created_after", bad), bad).toBe(false);
      expect(doc.query("GET", products, "created_before", bad), bad).toBe(false);
      expect((await t.call("GET", `pages?created_after=${bad}`)).status, bad).toBe(400);
      expect((await t.call("GET", `products?created_before=${bad}`)).status, bad).toBe(400);
    }
    for (const good of ["2024-02-29", "0000-01-01", "2026-02-28T10:00:00Z", "2026-02-28T10:00:00.123456+05:30"]) {
      expect(doc.query("GET", pages, "created_after", good), good).toBe(true);
      expect((await t.call("GET", `pages?created_after=${encodeURIComponent(good)}`)).status, good).toBe(200);
      expect((await t.call("GET", `products?created_after=${encodeURIComponent(good)}`)).status, good).toBe(200);
    }
  });

  it("seo_config URLs and theme colours", async () => {
    const created = await t.call("POST", "pages", { body: { product: inline } });
    await t.core.onIdle();
    const id = (await t.call("GET", created.json.data.poll_url)).json.data.page_id;
    const bad = [
      { seo_config: { ogImage: "x" } },
      { seo_config: { canonicalUrl: "ftp://example.com/" } },
      { seo_config: { canonicalUrl: "https://example.com/a b" } },
      { global_theme: { primaryColor: "x" } },
      { global_theme: { textColor: "" } },
      { global_theme: { fontFamily: '"Open Sans' } },
      { seo_config: { title: "   " } },
      { seo_config: { keywords: ["shoes", " "] } },
    ];
    for (const body of bad) {
      expect(doc.body("PATCH", page, body), JSON.stringify(body)).toBe(false);
      expect((await t.call("PATCH", `pages/${id}`, { body })).status, JSON.stringify(body)).toBe(400);
    }
    const good = { seo_config: { ogImage: "https://example.com/a.png" }, global_theme: { primaryColor: " RGB(1 2 3 / 50%) ", fontFamily: "'Open Sans', serif" } };
    expect(doc.body("PATCH", page, good)).toBe(true);
    expect((await t.call("PATCH", `pages/${id}`, { body: good })).status).toBe(200);
  });

  it("design colours, and exactly one of product / product_id", async () => {
    for (const body of [
      { product: inline, design: { primary_color: "" } },
      { product: inline, design: { text_color: "x" } },
      { product: inline, product_id: "00000000-0000-4000-8000-000000000000" },
      { product: { ...inline, title: " \t " } },
      { product: inline, checkout_fields: [{ field_key: "size", options: ["S", "M"] }] },
      { product: inline, checkout_fields: [{ field_key: "size", field_type: "select" }] },
      {},
    ]) {
      expect(doc.body("POST", pages, body), JSON.stringify(body)).toBe(false);
      expect((await t.call("POST", "pages", { body })).status, JSON.stringify(body)).toBe(400);
    }
    expect(doc.body("POST", pages, { product: inline, design: { primary_color: "hsl(120deg, 50%, 50%)" } })).toBe(true);
    // The server's own pattern, written once and referred to.
    expect(served.components.schemas.Color).toMatchObject({ type: "string", maxLength: 64, pattern: new RegExp(COLOR_PATTERN).source });
    expect(served.paths[pages].post.requestBody.content["application/json"].schema.properties.design.properties.primary_color.$ref).toBe("#/components/schemas/Color");
  });

  it("multipart numbers are bounded like JSON's", async () => {
    const schema = doc.bodySchema("POST", products, "multipart/form-data");
    expect(schema.properties.price).toMatchObject({ type: "number", minimum: 0, maximum: 1_000_000_000 });
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: "Poster", price: "62745948441983.16", product_type: "physical" })) form.set(k, v);
    const res = await t.call("POST", "products", { raw: form });
    expect(res.status).toBe(400);
    expect(res.json.error.details.issues[0].path).toBe("price");
    // Any number the document admits is read, exponent notation included.
    const ok = new FormData();
    for (const [k, v] of Object.entries({ title: "Poster", price: String(1.5e-7), delivery_price: "1e3", product_type: "physical" })) ok.set(k, v);
    const made = await t.call("POST", "products", { raw: ok });
    expect(made.status).toBe(201);
    expect(made.json.data).toMatchObject({ price: 1.5e-7, delivery_price: 1000 });
  });
});

describe("webhook endpoint events", () => {
  let t: WebhookTestApp;
  afterAll(async () => t.close());
  it("are unique in the document as on the server", async () => {
    t = await createWebhookTestApp();
    const doc = requestValidators((await t.call("GET", "/v1/openapi.json", { token: null })).json);
    const body = { url: "https://example.com/hooks", events: ["product.created", "product.created"] };
    expect(doc.body("POST", endpoints, body)).toBe(false);
    expect((await t.dev("POST", "", body)).status).toBe(400);
    expect(doc.body("POST", endpoints, { ...body, url: "https://user:pw@example.com/hooks", events: ["product.created"] })).toBe(false);
  });
});
