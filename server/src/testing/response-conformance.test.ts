import { afterEach, describe, expect, it } from "vitest";
import { createConformanceCheck } from "./response-conformance.js";
import { createTestApp, type TestApp } from "./test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const product = { title: "Chair", price: 120, product_type: "physical" };

describe("response conformance", () => {
  it("passes real answers and fails a body that strays from the documented schema, naming route, status and errors", async () => {
    t = await createTestApp();
    const created = await t.call("POST", "products", { body: product });
    expect(created.status).toBe(201);
    const check = createConformanceCheck(t.routes, t.openapi);
    const seen = { method: "GET", path: `${t.account}/products/${created.json.data.id}`, status: 200, contentType: "application/json", text: created.text };
    expect(() => check(seen)).not.toThrow();
    const strayed = { data: { ...created.json.data, price: "120" } };
    expect(() => check({ ...seen, text: JSON.stringify(strayed) })).toThrow(/GET \/v1\/accounts\/:account_id\/products\/:id -> 200 does not match[\s\S]*"instancePath": "\/data\/price"/);
    const missing = { data: { ...created.json.data, images: undefined } };
    expect(() => check({ ...seen, text: JSON.stringify(missing) })).toThrow(/images/);
  });

  it("fails a status the route does not document, and a body where none is documented", async () => {
    t = await createTestApp();
    const check = createConformanceCheck(t.routes, t.openapi);
    const path = `${t.account}/products/00000000-0000-4000-8000-000000000000`;
    expect(() => check({ method: "GET", path, status: 418, contentType: "application/json", text: "{}" })).toThrow(/-> 418 is not documented/);
    expect(() => check({ method: "DELETE", path, status: 204, contentType: null, text: "x" })).toThrow(/without a body/);
  });

  it("holds error envelopes to the Error schema", async () => {
    t = await createTestApp();
    const check = createConformanceCheck(t.routes, t.openapi);
    const path = `${t.account}/products/nope`;
    expect(() => check({ method: "GET", path, status: 404, contentType: "application/json", text: JSON.stringify({ error: { code: "not_found" } }) })).toThrow(/required property 'message'/);
  });

  it("checks admin answers against the contract although the document leaves them out", async () => {
    t = await createTestApp();
    const check = createConformanceCheck(t.routes, t.openapi);
    const created = await t.admin("POST", "/_admin/accounts", {});
    expect(created.status).toBe(201);
    const bad = { data: { ...created.json.data, page_quota: "many" } };
    expect(() => check({ method: "POST", path: "/_admin/accounts", status: 201, contentType: "application/json", text: JSON.stringify(bad) })).toThrow(/page_quota/);
  });

  it("runs inside createTestApp's call and fetch: a test app hands every answer to the check", async () => {
    t = await createTestApp();
    // A route's handler answering off-contract makes `call` throw, so every suite built on it is checked.
    const route = t.routes.find((r) => r.method === "GET" && r.path === "/v1/accounts/:account_id/products/:id")!;
    const original = route.handler;
    route.handler = () => new Response(JSON.stringify({ data: { id: "not-a-uuid" } }), { status: 200, headers: { "content-type": "application/json" } });
    try {
      await expect(t.call("GET", "products/00000000-0000-4000-8000-000000000000")).rejects.toThrow(/Response conformance: GET .* -> 200/);
      // The fetch handed to @lp/client and the CLI in their suites runs the same check.
      await expect(t.fetch(`http://lp.test${t.account}/products/00000000-0000-4000-8000-000000000000`, { headers: { authorization: `Bearer ${t.creds.token}` } })).rejects.toThrow(
        /Response conformance: GET .* -> 200/,
      );
    } finally {
      route.handler = original;
    }
  });
});
