import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";

const json = { "content-type": "application/json" };
const inline = { title: "Lamp", description: "A desk lamp.", price: 40, product_type: "physical" };

/** Body rules that hold for every route alike (issue 14). */
describe("request bodies", () => {
  let t: WebhookTestApp;
  let product: string;
  let page: string;
  let endpoint: string;
  beforeAll(async () => {
    t = await createWebhookTestApp();
    product = (await t.product()).id;
    const created = await t.call("POST", "pages", { body: { product: inline } });
    await t.core.onIdle();
    page = (await t.call("GET", created.json.data.poll_url)).json.data.page_id;
    endpoint = (await t.endpoint(await t.receiver())).id;
  });
  afterAll(async () => t.close());

  it("refuses a JSON null body with a 400 on every route that takes a body", async () => {
    const dev = { token: null, headers: { authorization: t.devAuth, ...json } };
    const account = { headers: json };
    const cases: [string, string, { token?: null; headers: Record<string, string> }][] = [
      ["POST", "products", account],
      ["PATCH", `products/${product}`, account],
      ["POST", "pages", account],
      ["PATCH", `pages/${page}`, account],
      ["POST", "/v1/developer/webhook-endpoints", dev],
      ["PATCH", `/v1/developer/webhook-endpoints/${endpoint}`, dev],
      ["POST", `/v1/developer/webhook-endpoints/${endpoint}/rotate-secret`, dev],
    ];
    for (const [method, path, init] of cases) {
      const res = await t.call(method, path, { raw: "null", ...init });
      const error = expectError(res, 400, "validation_error");
      expect(error.details.issues, `${method} ${path}`).toEqual([expect.objectContaining({ path: "" })]);
    }
    expect((await t.call("GET", `pages/${page}`)).json.data.global_theme.primaryColor).toBe("#1d4ed8");
  });

  it("refuses a non-empty body without Content-Type with a 415", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ title: "Untyped", price: 1, product_type: "service" }));
    const res = await t.call("POST", "products", { raw: bytes });
    expect(expectError(res, 415, "unsupported_media_type").message).toMatch(/no Content-Type/);
    const patch = await t.call("PATCH", `pages/${page}`, { raw: new TextEncoder().encode('{"seo_config":{"title":"x"}}') });
    expectError(patch, 415, "unsupported_media_type");
    expect((await t.call("GET", "products")).json.data.map((p: { title: string }) => p.title)).not.toContain("Untyped");
    // An empty body without a type is still "no body".
    expect((await t.call("PATCH", `products/${product}`, { raw: new Uint8Array() })).status).toBe(200);
  });

  it("refuses empty multipart list parts instead of ignoring them", async () => {
    for (const field of ["images", "remove_image_ids", "reorder_images"]) {
      const form = new FormData();
      form.set("title", "Renamed");
      form.append(field, "");
      const res = await t.call("PATCH", `products/${product}`, { raw: form });
      const issues = expectError(res, 400, "validation_error").details.issues;
      expect(issues).toEqual([expect.objectContaining({ path: field, message: expect.stringMatching(/empty part/) })]);
    }
    const create = new FormData();
    for (const [k, v] of Object.entries({ title: "Poster", price: "5", product_type: "physical", images: " " })) create.set(k, v);
    expect(expectError(await t.call("POST", "products", { raw: create }), 400, "validation_error").details.issues[0].path).toBe("images");
    expect((await t.call("GET", `products/${product}`)).json.data.title).toBe("Lamp");
  });

  it("keeps commas inside multipart image URLs, and still reads a comma list of URLs", async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ title: "Poster", price: "5", product_type: "physical" })) form.set(k, v);
    form.append("images", "https://cdn.example/a,b.png, https://cdn.example/c.png");
    const res = await t.call("POST", "products", { raw: form });
    expect(res.status).toBe(201);
    expect(res.json.data.images.map((i: { url: string }) => i.url)).toEqual(["https://cdn.example/a,b.png", "https://cdn.example/c.png"]);
  });
});
