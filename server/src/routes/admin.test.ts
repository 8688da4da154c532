import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

for (const storage of testStorages()) {
  describe(`admin API (${storage})`, () => {
    let t: TestApp;
    const others: TestApp[] = [];
    beforeEach(async () => {
      t = await createTestApp({ storage });
    });
    afterEach(async () => {
      await t.close();
      for (const o of others.splice(0)) await o.close();
    });

    it("creates accounts with defaults, and validates them", async () => {
      const made = await t.admin("POST", "/_admin/accounts");
      expect(made.status).toBe(201);
      expect(made.json.data).toEqual({
        account_id: expect.stringMatching(/^acct_[0-9a-f]{16}$/),
        environment: "production",
        currency: "USD",
        page_quota: 100,
        product_quota: 10_000,
        media_quota_bytes: 500 * 1024 * 1024,
        created_at: t.clock.now().toISOString(),
      });
      const custom = await t.admin("POST", "/_admin/accounts", { account_id: "shop-1", environment: "test", currency: "EUR", page_quota: 3, product_quota: 7, media_quota_bytes: 4096 });
      expect(custom.json.data).toMatchObject({ account_id: "shop-1", environment: "test", currency: "EUR", page_quota: 3, product_quota: 7, media_quota_bytes: 4096 });
      const bad: [Record<string, unknown>, string][] = [
        [{ account_id: "../x" }, "account_id"],
        [{ account_id: "a:b" }, "account_id"],
        [{ account_id: "" }, "account_id"],
        [{ environment: "staging" }, "environment"],
        [{ currency: "usd" }, "currency"],
        [{ page_quota: -1 }, "page_quota"],
        [{ page_quota: 1.5 }, "page_quota"],
        [{ product_quota: -1 }, "product_quota"],
        [{ product_quota: "10" }, "product_quota"],
        [{ media_quota_bytes: 2 ** 41 }, "media_quota_bytes"],
        [{ media_quota_bytes: 0.5 }, "media_quota_bytes"],
        [{ owner: "me" }, ""],
        [{ account_id: "shop-1" }, "account_id"],
      ];
      for (const [body, path] of bad) {
        const err = expectError(await t.admin("POST", "/_admin/accounts", body), 400, "validation_error");
        expect(err.details.issues.map((i: { path: string }) => i.path), JSON.stringify(body)).toContain(path);
      }
    });

    it("issues tokens shown once, with validated scopes", async () => {
      await t.admin("POST", "/_admin/accounts", { account_id: "shop" });
      const all = await t.admin("POST", "/_admin/tokens", { account_id: "shop" });
      expect(all.status).toBe(201);
      expect(all.json.data).toEqual({
        token: expect.stringMatching(/^lp_/),
        account_id: "shop",
        scopes: ["pages:read", "pages:write", "pages:deploy", "products:read", "products:write"],
        expires_at: null,
      });
      expect((await t.call("GET", "/v1/accounts/shop/products", { token: all.json.data.token })).status).toBe(200);
      const bad: [Record<string, unknown>, string][] = [
        [{ account_id: "shop", scopes: ["products:admin"] }, "scopes.0"],
        [{ account_id: "shop", scopes: [] }, "scopes"],
        [{ account_id: "shop", expires_in: 0 }, "expires_in"],
        [{ account_id: "shop", expires_in: "1h" }, "expires_in"],
        [{ scopes: ["products:read"] }, "account_id"],
        [{ account_id: "../shop" }, "account_id"],
      ];
      for (const [body, path] of bad) {
        const err = expectError(await t.admin("POST", "/_admin/tokens", body), 400, "validation_error");
        expect(err.details.issues.map((i: { path: string }) => i.path)).toContain(path);
      }
      expectError(await t.admin("POST", "/_admin/tokens", { account_id: "nobody" }), 404, "not_found");
      expect(JSON.stringify((await t.admin("GET", "/_admin/export")).json)).not.toContain(all.json.data.token);
    });

    it("registers applications whose secret is kept hashed", async () => {
      await t.admin("POST", "/_admin/accounts", { account_id: "shop" });
      const app = await t.admin("POST", "/_admin/apps", { name: "Partner", account_ids: ["shop", "shop"] });
      expect(app.status).toBe(201);
      expect(app.json.data).toEqual({
        application_id: expect.stringMatching(/^app_[0-9a-f]{24}$/),
        client_secret: expect.stringMatching(/^lpsk_/),
        name: "Partner",
        account_ids: ["shop"],
      });
      const { application_id, client_secret } = app.json.data;
      expect(await t.core.accounts.authenticateApp(application_id, client_secret)).toMatchObject({ application_id, account_ids: ["shop"] });
      await expect(t.core.accounts.authenticateApp(application_id, `${client_secret}x`)).rejects.toMatchObject({ code: "unauthenticated" });
      expect(JSON.stringify((await t.admin("GET", "/_admin/export")).json)).not.toContain(client_secret);
      expectError(await t.admin("POST", "/_admin/apps", { name: "", account_ids: [] }), 400, "validation_error");
      expectError(await t.admin("POST", "/_admin/apps", { account_ids: [] }), 400, "validation_error");
      expectError(await t.admin("POST", "/_admin/apps", { name: "X", account_ids: ["nobody"] }), 404, "not_found");
    });

    it("resets everything but keeps the dev credentials working", async () => {
      const product = (await t.call("POST", "products", { body: { title: "Gone soon", price: 1, product_type: "service" } })).json.data;
      await t.admin("POST", "/_admin/accounts", { account_id: "shop" });
      const token = (await t.admin("POST", "/_admin/tokens", { account_id: "shop" })).json.data.token;
      const reset = await t.admin("POST", "/_admin/reset");
      expect(reset.status).toBe(200);
      expect((await t.call("GET", "products")).json.data).toEqual([]);
      expectError(await t.call("GET", `products/${product.id}`), 404, "not_found");
      expectError(await t.call("GET", "/v1/accounts/shop/products", { token }), 401, "unauthenticated");
      expect((await t.call("POST", "products", { body: { title: "After", price: 1, product_type: "service" } })).status).toBe(201);
      expect(await t.core.accounts.authenticateApp(t.creds.application_id, t.creds.client_secret)).toBeTruthy();
    });

    it("exports and imports a round trip, media and tokens included", async () => {
      const form = new FormData();
      form.set("title", "Poster");
      form.set("price", "12.5");
      form.set("product_type", "physical");
      form.append("images", new Blob([PNG]), "p.png");
      const poster = (await t.call("POST", "products", { raw: form })).json.data;
      const lamp = (await t.call("POST", "products", { body: { title: "Lamp", price: 3, product_type: "physical" } })).json.data;
      await t.call("DELETE", `products/${lamp.id}`);
      await t.admin("POST", "/_admin/accounts", { account_id: "shop", currency: "EUR" });
      const token = (await t.admin("POST", "/_admin/tokens", { account_id: "shop", scopes: ["products:read"] })).json.data.token;

      await t.core.onIdle();
      const exported = await t.admin("GET", "/_admin/export");
      expect(exported.status).toBe(200);
      expect(exported.json).toMatchObject({ format: "lp-export", version: 3 });
      expect(Object.keys(exported.json.media)).toEqual([new URL(poster.images[0].url).pathname.replace(/^\/media\//, "")]);
      // The service's own keys (cursors, builder links, the admin key, the dev credentials) never leave it.
      expect(exported.json.tables).not.toHaveProperty("settings");
      expect(exported.json.tables.products.map((p: { id: string }) => p.id).sort()).toEqual([poster.id, lamp.id].sort());
      expect(exported.json.tables.accounts.map((a: { account_id: string }) => a.account_id)).toContain("shop");
      expect(exported.json.tables.tokens.length).toBeGreaterThanOrEqual(2);

      await t.admin("POST", "/_admin/reset");
      expectError(await t.call("GET", `products/${poster.id}`), 404, "not_found");
      const imported = await t.admin("POST", "/_admin/import", exported.json);
      expect(imported.status).toBe(200);
      const rows = Object.fromEntries(Object.entries(exported.json.tables as Record<string, unknown[]>).map(([table, list]) => [table, list.length]));
      expect(imported.json.data).toEqual({ records: Object.values(rows).reduce((sum, n) => sum + n, 0), media: 1, tables: rows, left: [] });

      expect((await t.call("GET", `products/${poster.id}`)).json.data).toEqual(poster);
      expectError(await t.call("GET", `products/${lamp.id}`), 404, "not_found");
      expect((await t.call("GET", "products")).json.data.map((p: { id: string }) => p.id)).toEqual([poster.id]);
      const media = await t.app.request(new URL(poster.images[0].url).pathname);
      expect(Buffer.from(await media.arrayBuffer()).equals(PNG)).toBe(true);
      expect((await t.call("GET", "/v1/accounts/shop/products", { token })).status).toBe(200);
      await t.core.onIdle();
      const again = (await t.admin("GET", "/_admin/export")).json;
      expect({ ...again, exported_at: null }).toEqual({ ...exported.json, exported_at: null });

      // Into another server: its own dev credentials keep working next to the imported data.
      const other = await createTestApp({ storage });
      others.push(other);
      expect((await other.admin("POST", "/_admin/import", exported.json)).status).toBe(200);
      expect((await other.call("GET", `products/${poster.id}`)).json.data.title).toBe("Poster");
      expect((await other.call("GET", "/v1/accounts/shop/products", { token })).status).toBe(200);
    });

    it("refuses import documents that are malformed or aim outside the store, and changes nothing", async () => {
      const product = (await t.call("POST", "products", { body: { title: "Kept", price: 1, product_type: "service" } })).json.data;
      const exported = (await t.admin("GET", "/_admin/export")).json;
      const row = exported.tables.products[0];
      const v3 = { ...exported, tables: {}, media: {} };
      const v1 = { format: "lp-export", version: 1, exported_at: "2026-01-01T00:00:00.000Z", records: {}, media: {} };
      const bad = [
        { ...v3, format: "other" },
        { ...v3, version: 2 },
        { ...v3, tables: { settings: [{ name: "admin_key", value: "mine", created_at: row.created_at }] } },
        { ...v3, tables: { nothing: [] } },
        { ...v3, tables: { products: [{ ...row, extra: 1 }] } },
        { ...v3, tables: { products: [{ ...row, price: "12" }] } },
        { ...v3, tables: { products: [Object.fromEntries(Object.entries(row).filter(([name]) => name !== "title"))] } },
        // A row the database refuses: an image of a product that is not there.
        { ...v3, tables: { product_images: [{ id: "i1", product_id: "gone", url: "https://x.test/a.png", media_type: "image/png", display_order: 0, media_path: null, bytes: null, created_at: row.created_at }] } },
        { ...v3, media: { "products/../x.png": "AAAA" } },
        { ...v3, media: { "products/p/x.png": "not base64!" } },
        { ...v1, records: { "meta:dev_credentials": {} } },
        { ...v1, records: { "acct:..:products:x": {} } },
        { ...v1, records: { "..": {} } },
        { ...v1, records: { ".tmp:x": {} } },
        { ...v1, records: { "a::b": {} } },
        { ...v1, records: { "a/b": {} } },
        { ...v1, media: { "products:..:x.png": "AAAA" } },
        { ...v1, media: { "x.png": 5 } },
        [],
      ];
      for (const doc of bad) expectError(await t.admin("POST", "/_admin/import", doc), 400, "validation_error");
      expect((await t.call("GET", `products/${product.id}`)).json.data.title).toBe("Kept");
      expect({ ...(await t.admin("GET", "/_admin/export")).json, exported_at: null }).toEqual({ ...exported, exported_at: null });
    });
  });
}
