import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

/** The headers the server sets that a client may act on; each must be documented where it is sent. */
const NOTABLE = ["x-request-id", "location", "link", "idempotent-replayed", "www-authenticate", "retry-after", "allow"];
const products = "/v1/accounts/{account_id}/products";

describe("response headers in /v1/openapi.json", () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.call("GET", "/v1/openapi.json", { token: null })).json;
  });
  afterAll(async () => t.close());

  /** Header names documented for one operation and status, resolved through components, lower case. */
  function documented(method: string, path: string, status: number): string[] {
    const response = doc.paths[path][method.toLowerCase()].responses[String(status)];
    expect(response, `${method} ${path} ${status} is documented`).toBeDefined();
    return Object.entries<any>(response.headers ?? {}).map(([name, h]) => {
      if (h.$ref) expect(doc.components.headers[h.$ref.split("/").pop()], h.$ref).toBeDefined();
      return name.toLowerCase();
    });
  }

  async function expectDocumented(method: string, path: string, docPath: string, init: Parameters<TestApp["call"]>[2] = {}, docMethod = method) {
    const res = await t.call(method, path, init);
    const sent = NOTABLE.filter((h) => res.headers.has(h));
    expect(sent).toContain("x-request-id");
    expect(documented(docMethod, docPath, res.status), `${method} ${path} → ${res.status} sends ${sent.join(", ")}`).toEqual(expect.arrayContaining(sent));
    return { res, sent };
  }

  it("documents what real responses carry: Location, Link, Idempotent-Replayed, WWW-Authenticate, Allow, X-Request-Id", async () => {
    const key = { headers: { "idempotency-key": "headers-1" } };
    const body = { title: "Lamp", price: 10, product_type: "physical" };
    await expectDocumented("POST", "products", products, { body, ...key });
    const replay = await expectDocumented("POST", "products", products, { body, ...key });
    expect(replay.sent).toContain("idempotent-replayed");
    await t.call("POST", "products", { body: { ...body, title: "Desk" } });
    expect((await expectDocumented("GET", "products?per_page=1", products)).sent).toContain("link");
    expect((await expectDocumented("GET", "products", products, { token: null })).sent).toContain("www-authenticate");
    const page = await expectDocumented("POST", "pages", "/v1/accounts/{account_id}/pages", { body: { product: { ...body, description: "A lamp." } } });
    expect(page.sent).toContain("location");
    // A 405 answers a method the path does not take: its operations document it.
    expect((await expectDocumented("PUT", "products", products, {}, "GET")).sent).toContain("allow");
  });

  it("documents Retry-After on 409 and X-Request-Id on every response of every operation", () => {
    expect(documented("POST", products, 409)).toContain("retry-after");
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        for (const status of Object.keys(op.responses)) expect(documented(method, path, Number(status)), `${method} ${path} ${status}`).toContain("x-request-id");
      }
    }
  });
});
