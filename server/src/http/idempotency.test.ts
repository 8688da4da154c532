import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

const DAY = 24 * 3_600_000;
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const lamp = { title: "Lamp", price: 10, product_type: "physical" };

for (const storage of testStorages()) {
  describe(`idempotency keys (${storage})`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp({ storage });
    });
    afterEach(async () => {
      await t.close();
    });

    const post = (key: string, body: unknown = lamp, extra: { token?: string; path?: string } = {}) =>
      t.call("POST", extra.path ?? "products", { body, token: extra.token, headers: { "idempotency-key": key } });
    const count = async () => (await t.call("GET", "products?per_page=100")).json.data.length;

    it("replays the stored response and creates nothing new", async () => {
      const first = await post("key-1");
      expect(first.status).toBe(201);
      expect(first.headers.get("idempotent-replayed")).toBeNull();
      for (let i = 0; i < 3; i++) {
        const again = await post("key-1");
        expect(again.status).toBe(201);
        expect(again.text).toBe(first.text);
        expect(again.headers.get("idempotent-replayed")).toBe("true");
        expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
      }
      expect(await count()).toBe(1);
      // Another key is another request.
      expect((await post("key-2")).json.data.id).not.toBe(first.json.data.id);
      expect(await count()).toBe(2);
    });

    it("refuses an empty key as too small and a long one as too long, creating nothing", async () => {
      for (const [key, code] of [["", "too_small"], ["   ", "too_small"], ["k".repeat(256), "too_long"]] as const) {
        const res = await post(key);
        expectError(res, 400, "validation_error");
        expect(res.json.error.details.issues).toEqual([{ path: "header.Idempotency-Key", code, message: "must be 1 to 255 characters" }]);
      }
      expect(await count()).toBe(0);
      expect((await post("k".repeat(255))).status).toBe(201);
    });

    it("replays PATCH too, and ignores the key on GET and DELETE", async () => {
      const id = (await post("create")).json.data.id;
      const patch = () => t.call("PATCH", `products/${id}`, { body: { images: ["https://cdn.example/a.png"] }, headers: { "idempotency-key": "p1" } });
      const first = await patch();
      const second = await patch();
      expect(second.headers.get("idempotent-replayed")).toBe("true");
      expect(second.json).toEqual(first.json);
      expect((await t.call("GET", `products/${id}`)).json.data.images).toHaveLength(1);
      const get = await t.call("GET", `products/${id}`, { headers: { "idempotency-key": "p1" } });
      expect(get.headers.get("idempotent-replayed")).toBeNull();
      expect((await t.call("DELETE", `products/${id}`, { headers: { "idempotency-key": "p1" } })).status).toBe(204);
    });

    it("answers 422 for the same key with another body, method or path content", async () => {
      expect((await post("k")).status).toBe(201);
      expectError(await post("k", { ...lamp, price: 11 }), 422, "idempotency_key_reused");
      expectError(await post("k", { price: 10, title: "Lamp", product_type: "physical" }), 422, "idempotency_key_reused");
      expect(await count()).toBe(1);
    });

    it("scopes keys to account, method and path", async () => {
      const a = (await post("shared")).json.data;
      const patched = await t.call("PATCH", `products/${a.id}`, { body: { title: "Renamed" }, headers: { "idempotency-key": "shared" } });
      expect(patched.status).toBe(200);
      expect(patched.headers.get("idempotent-replayed")).toBeNull();
      await t.admin("POST", "/_admin/accounts", { account_id: "acct_b" });
      const token = (await t.admin("POST", "/_admin/tokens", { account_id: "acct_b" })).json.data.token;
      const b = await post("shared", lamp, { token, path: "/v1/accounts/acct_b/products" });
      expect(b.status).toBe(201);
      expect(b.headers.get("idempotent-replayed")).toBeNull();
      expect(b.json.data.id).not.toBe(a.id);
    });

    it("stores nothing for requests that fail validation or authorisation", async () => {
      const bad = await post("retry-me", { ...lamp, price: -1 });
      expectError(bad, 400, "validation_error");
      expectError(await post("retry-me", { ...lamp, price: -1 }), 400, "validation_error");
      const readOnly = (await t.admin("POST", "/_admin/tokens", { account_id: t.creds.account_id, scopes: ["products:read"] })).json.data.token;
      expectError(await post("retry-me", lamp, { token: readOnly }), 403, "insufficient_scope");
      expectError(await t.call("POST", "products", { raw: "{", headers: { "content-type": "application/json", "idempotency-key": "retry-me" } }), 400, "invalid_json");
      const ok = await post("retry-me");
      expect(ok.status).toBe(201);
      expect(ok.headers.get("idempotent-replayed")).toBeNull();
      expect(await count()).toBe(1);
    });

    it("lets one of many concurrent duplicates run; the rest replay or get 409 with Retry-After", async () => {
      const results = await Promise.all(Array.from({ length: 12 }, () => post("race")));
      const executed = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
      expect(executed).toHaveLength(1);
      for (const r of results) {
        if (r === executed[0]) continue;
        if (r.status === 409) {
          expectError(r, 409, "idempotency_key_in_use");
          expect(r.headers.get("retry-after")).toBe("1");
        } else {
          expect(r.status).toBe(201);
          expect(r.headers.get("idempotent-replayed")).toBe("true");
          expect(r.text).toBe(executed[0].text);
        }
      }
      expect(await count()).toBe(1);
      // Once it finished, the key replays.
      expect((await post("race")).headers.get("idempotent-replayed")).toBe("true");
    });

    it("replays for 24 hours on the clock, then runs the request again", async () => {
      const first = await post("daily");
      t.clock.advance(DAY - 1);
      expect((await post("daily")).headers.get("idempotent-replayed")).toBe("true");
      t.clock.advance(1);
      const later = await post("daily");
      expect(later.status).toBe(201);
      expect(later.headers.get("idempotent-replayed")).toBeNull();
      expect(later.json.data.id).not.toBe(first.json.data.id);
      expect(await count()).toBe(2);
    });

    it("replays a 404 with the request id its body quotes", async () => {
      const path = "products/3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f";
      const first = await t.call("PATCH", path, { body: { title: "x" }, headers: { "idempotency-key": "gone" } });
      const again = await t.call("PATCH", path, { body: { title: "x" }, headers: { "idempotency-key": "gone" } });
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(expectError(again, 404, "not_found").request_id).toBe(expectError(first, 404, "not_found").request_id);
    });

    it("refuses keys longer than 255 characters", async () => {
      expectError(await post("k".repeat(256)), 400, "validation_error");
      expect((await post("k".repeat(255))).status).toBe(201);
    });

    it("never loses an image when PATCHes add images concurrently", async () => {
      const id = (await post("base")).json.data.id;
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => t.call("PATCH", `products/${id}`, { body: { images: [`https://cdn.example/${i}.png`] } })),
      );
      for (const r of results) expect(r.status).toBe(200);
      const uploads = await Promise.all(
        Array.from({ length: 10 }, () => {
          const form = new FormData();
          form.append("images", new Blob([PNG]), "p.png");
          return t.call("PATCH", `products/${id}`, { raw: form });
        }),
      );
      for (const r of uploads) expect(r.status).toBe(200);
      const images = (await t.call("GET", `products/${id}`)).json.data.images;
      expect(images).toHaveLength(20);
      expect(images.map((i: { display_order: number }) => i.display_order)).toEqual([...Array(20).keys()]);
      expect(new Set(images.filter((i: { url: string }) => i.url.startsWith("https://cdn")).map((i: { url: string }) => i.url)).size).toBe(10);
      expect(await t.core.media.paths()).toHaveLength(10);
      const more = await t.call("PATCH", `products/${id}`, { body: { images: ["https://cdn.example/21.png"] } });
      expect(expectError(more, 400, "validation_error").details.issues[0]).toMatchObject({ path: "images", code: "too_many" });
    });
  });
}
