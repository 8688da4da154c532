import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { takeSnapshot } from "../testing/fuzz-snapshot.js";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

const UNKNOWN = "3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f";

for (const storage of testStorages()) {
  describe(`error answers (${storage})`, () => {
    let t: TestApp;
    let seeded: string;
    const keys = async () => {
      await t.core.onIdle();
      // Every row with its columns, and every media file: a changed row differs as much as a new one.
      return [...(await takeSnapshot(t.core))].map(([key, row]) => `${key} ${row}`).sort();
    };
    beforeEach(async () => {
      t = await createTestApp({ storage });
      seeded = (await t.call("POST", "products", { body: { title: "Seed", price: 1, product_type: "service" } })).json.data.id;
    });
    afterEach(async () => {
      await t.close();
    });

    it("answers 404 for traversal attempts and ids that match no pattern, and writes nothing", async () => {
      const before = await keys();
      const productPaths = [
        "products/..", "products/../../../../etc/passwd", "products/%2e%2e", "products/%2e%2e%2f%2e%2e%2fmeta", "products/..%2f..%2ftokens",
        "products/..%5c..%5cmeta", "products/not-a-uuid", "products/%", "products/%zz", `products/${UNKNOWN.toUpperCase()}`,
        "products/00000000-0000-0000-0000-000000000000", `products/${UNKNOWN}x`, `products/${UNKNOWN}`, `products/meta:cursor_key`,
        `products/${"a".repeat(5000)}`,
      ];
      const accounts = ["..", "%2e%2e", "..%2facct_dev", "acct%2fdev", "acct:dev", "-acct", "a".repeat(65), "acct%00", "%zz", "acct dev"];
      const attempts: [string, string][] = [];
      for (const path of productPaths) for (const method of ["GET", "PATCH", "DELETE"]) attempts.push([method, path]);
      for (const account of accounts) {
        attempts.push(["GET", `/v1/accounts/${account}/products`], ["POST", `/v1/accounts/${account}/products`]);
        attempts.push(["GET", `/v1/accounts/${account}/products/${seeded}`], ["PATCH", `/v1/accounts/${account}/products/${seeded}`]);
      }
      for (const [method, path] of attempts) {
        const body = method === "PATCH" || method === "POST" ? { title: "Hacked", price: 1, product_type: "service" } : undefined;
        const res = await t.call(method, path, { body });
        expectError(res, 404, "not_found");
      }
      expect(await keys()).toEqual(before);
      expect((await t.call("GET", `products/${seeded}`)).json.data.title).toBe("Seed");
    });

    it("answers 405 with Allow for a known path and another method", async () => {
      const cases: [string, string, string][] = [
        ["PUT", "products", "POST, GET"],
        ["DELETE", "products", "POST, GET"],
        ["POST", `products/${seeded}`, "GET, PATCH, DELETE"],
        ["PUT", `products/${seeded}`, "GET, PATCH, DELETE"],
        ["POST", "/healthz", "GET"],
        ["GET", "/_admin/reset", "POST"],
        ["POST", "/v1/openapi.json", "GET"],
      ];
      for (const [method, path, allow] of cases) {
        const res = await t.call(method, path, { body: method === "GET" ? undefined : {} });
        expectError(res, 405, "method_not_allowed");
        expect(res.headers.get("allow")).toBe(allow);
      }
      expectError(await t.call("GET", "/v2/accounts/acct_dev/products"), 404, "not_found");
    });

    it("answers HEAD like GET, without a body", async () => {
      const health = await t.call("HEAD", "/healthz");
      expect([health.status, health.text]).toEqual([200, ""]);
      const product = await t.call("HEAD", `products/${seeded}`);
      expect([product.status, product.text, product.headers.get("content-type")]).toEqual([200, "", "application/json; charset=utf-8"]);
      const denied = await t.call("HEAD", "products", { token: null });
      expect([denied.status, denied.text]).toEqual([401, ""]);
      expect(denied.headers.get("www-authenticate")).toMatch(/^Bearer/);
    });

    it("answers 400 invalid_json for bodies that do not parse", async () => {
      for (const raw of ["{", "{\"title\":", "not json", "{'title': 'x'}", "[1,]", "\u0000"]) {
        for (const [method, path] of [["POST", "products"], ["PATCH", `products/${seeded}`]]) {
          const res = await t.call(method, path, { raw, headers: { "content-type": "application/json" } });
          expectError(res, 400, "invalid_json");
        }
      }
      expect((await t.call("GET", "products")).json.data).toHaveLength(1);
    });

    it("answers 415 for a body neither JSON nor multipart", async () => {
      for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml", "image/png"]) {
        const res = await t.call("POST", "products", { raw: "title=x&price=1", headers: { "content-type": type } });
        expect(expectError(res, 415, "unsupported_media_type").message).toContain(type);
        expectError(await t.call("PATCH", `products/${seeded}`, { raw: "x", headers: { "content-type": type } }), 415, "unsupported_media_type");
      }
      expect((await t.call("GET", "products")).json.data).toHaveLength(1);
    });

    it("answers 413 for a JSON body over 1 MiB, declared or not", async () => {
      const huge = JSON.stringify({ title: "Big", price: 1, product_type: "service", description: "x".repeat(1024 * 1024) });
      const streamed = await t.call("POST", "products", { raw: huge, headers: { "content-type": "application/json" } });
      expect(expectError(streamed, 413, "payload_too_large").details).toEqual({ limit: "body", limit_bytes: 1024 * 1024 });
      const declared = await t.call("POST", "products", {
        raw: huge,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(huge)) },
      });
      expectError(declared, 413, "payload_too_large");
      expectError(await t.call("PATCH", `products/${seeded}`, { raw: huge, headers: { "content-type": "application/json" } }), 413, "payload_too_large");
      expect((await t.call("GET", "products")).json.data).toHaveLength(1);
    });

    it("answers 413 for an image over 10 MiB, and stores no media", async () => {
      const big = Buffer.alloc(10 * 1024 * 1024 + 1);
      Buffer.from("89504e470d0a1a0a", "hex").copy(big);
      const form = new FormData();
      form.set("title", "Poster");
      form.set("price", "5");
      form.set("product_type", "physical");
      form.append("images", new Blob([big]), "big.png");
      const res = await t.call("POST", "products", { raw: form });
      expect(expectError(res, 413, "payload_too_large").details).toMatchObject({ limit_bytes: 10 * 1024 * 1024 });
      const patch = new FormData();
      patch.append("images", new Blob([big]), "big.png");
      expectError(await t.call("PATCH", `products/${seeded}`, { raw: patch }), 413, "payload_too_large");
      expect(await t.core.media.paths()).toEqual([]);
      expect((await t.call("GET", "products")).json.data).toHaveLength(1);
    });

    it("never answers with a 5xx to odd requests", async () => {
      const odd: [string, string, { raw?: string; headers?: Record<string, string> }][] = [
        ["POST", "products", { raw: "null", headers: { "content-type": "application/json" } }],
        ["POST", "products", { raw: "[]", headers: { "content-type": "application/json" } }],
        ["POST", "products", { raw: "\"text\"", headers: { "content-type": "application/json" } }],
        ["POST", "products", { raw: "", headers: { "content-type": "application/json" } }],
        ["POST", "products", {}],
        ["PATCH", `products/${seeded}`, { raw: "null", headers: { "content-type": "application/json" } }],
        ["PATCH", `products/${seeded}`, { raw: "[1]", headers: { "content-type": "application/json" } }],
        ["POST", "products", { raw: "--x\r\nbroken", headers: { "content-type": "multipart/form-data; boundary=x" } }],
        ["POST", "products", { raw: "{}", headers: { "content-type": "multipart/form-data" } }],
        ["POST", "products", { raw: "{}", headers: { "content-type": "application/json; charset=latin1" } }],
        ["GET", "products?per_page=1e400&sort[]=x&q[a]=1", {}],
        ["GET", "products?created_after=2026-02-30&created_before=0000-00-00", {}],
        ["GET", "products?cursor=%00%01", {}],
        ["POST", "products", { raw: "{}", headers: { "content-type": "application/json", "idempotency-key": "" } }],
        ["POST", "products", { raw: "{}", headers: { "content-type": "application/json", "idempotency-key": "k".repeat(256) } }],
      ];
      for (const [method, path, init] of odd) {
        const res = await t.call(method, path, init);
        expect(res.status, `${method} ${path} ${JSON.stringify(init)}: ${res.text}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(500);
        expectError(res, res.status, res.json.error.code);
      }
      expect((await t.call("GET", "products")).json.data).toHaveLength(1);
    });
  });
}
