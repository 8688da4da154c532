import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { takeSnapshot } from "../testing/fuzz-snapshot.js";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

/** A PNG's signature and header: 29 bytes, sniffed as image/png; padded to the size a test needs. */
const png = (size: number) => Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"), Buffer.alloc(size - 29)]);

for (const storage of testStorages()) {
  describe(`product and media quotas (${storage})`, () => {
    let t: TestApp;
    let token: string;
    beforeEach(async () => {
      t = await createTestApp({ storage });
    });
    afterEach(() => t.close());

    /** An account with the given quotas, and a token with every scope for it. */
    async function account(quotas: { product_quota?: number; media_quota_bytes?: number }) {
      expect((await t.admin("POST", "/_admin/accounts", { account_id: "shop", ...quotas })).status).toBe(201);
      token = (await t.admin("POST", "/_admin/tokens", { account_id: "shop" })).json.data.token;
    }
    const call = (method: string, path: string, init: { body?: unknown; raw?: BodyInit } = {}) => t.call(method, `/v1/accounts/shop/${path}`, { ...init, token });
    const product = (title: string) => call("POST", "products", { body: { title, price: 5, product_type: "physical" } });
    function upload(bytes: Buffer, fields: Record<string, string> = { title: "Poster", price: "12", product_type: "physical" }) {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      form.append("images", new Blob([new Uint8Array(bytes)]), "poster.png");
      return form;
    }
    /** What is stored: every row (deleted products too) and media file, by its key. */
    const recordKeys = async () => [...(await takeSnapshot(t.core)).keys()].sort();
    const mediaKeys = () => t.core.media.paths();

    it("refuses a product over product_quota with 403 naming it, stores nothing, and counts a soft delete as freed", async () => {
      await account({ product_quota: 2 });
      const [a] = [await product("A"), await product("B")];
      const before = await recordKeys();
      const err = expectError(await product("C"), 403, "quota_exceeded");
      expect(err.details).toEqual({ quota: "products", limit: 2, used: 2 });
      expect(await recordKeys()).toEqual(before);
      expect((await call("DELETE", `products/${a!.json.data.id}`)).status).toBe(204);
      expect((await product("C")).status).toBe(201);
    });

    it("counts the inline product of POST /pages, refusing before a job or product is stored", async () => {
      await account({ product_quota: 1 });
      expect((await product("A")).status).toBe(201);
      const before = await recordKeys();
      const err = expectError(await call("POST", "pages", { body: { product: { title: "Inline", description: "A service.", price: 3, product_type: "service" } } }), 403, "quota_exceeded");
      expect(err.details).toMatchObject({ quota: "products", limit: 1, used: 1 });
      expect(await recordKeys()).toEqual(before);
    });

    it("holds under concurrent creates: exactly the quota succeeds", async () => {
      await account({ product_quota: 3 });
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => product(`P${i}`)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      expect(results.filter((r) => r.status === 403)).toHaveLength(9);
      expect((await call("GET", "products")).json.data).toHaveLength(3);
    });

    it("refuses uploads over media_quota_bytes before any byte is stored, on create and on update", async () => {
      await account({ media_quota_bytes: 1000 });
      const first = await call("POST", "products", { raw: upload(png(600)) });
      expect(first.status).toBe(201);
      const [records, media] = [await recordKeys(), await mediaKeys()];

      const created = expectError(await call("POST", "products", { raw: upload(png(600)) }), 403, "quota_exceeded");
      expect(created.details).toEqual({ quota: "media_bytes", limit: 1000, used: 600, requested: 600 });
      const id = first.json.data.id;
      const patched = expectError(await call("PATCH", `products/${id}`, { raw: upload(png(401), {}) }), 403, "quota_exceeded");
      expect(patched.details).toMatchObject({ quota: "media_bytes", limit: 1000, used: 600 });
      expect([await recordKeys(), await mediaKeys()]).toEqual([records, media]);

      // Within the quota, and a replaced image frees its bytes first.
      expect((await call("PATCH", `products/${id}`, { raw: upload(png(400), {}) })).status).toBe(200);
      const image = first.json.data.images[0].id;
      const replaced = await call("PATCH", `products/${id}`, { raw: upload(png(500), { remove_image_ids: image }) });
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.json.data.images).toHaveLength(2);
    });

    it("frees a soft-deleted product's image bytes; images given as URLs take none", async () => {
      await account({ media_quota_bytes: 1000 });
      const first = await call("POST", "products", { raw: upload(png(900)) });
      expectError(await call("POST", "products", { raw: upload(png(200)) }), 403, "quota_exceeded");
      const byUrl = await call("POST", "products", { body: { title: "Linked", price: 1, product_type: "physical", images: ["https://cdn.example/a.png"] } });
      expect(byUrl.status).toBe(201);
      expect((await call("DELETE", `products/${first.json.data.id}`)).status).toBe(204);
      expect((await call("POST", "products", { raw: upload(png(900)) })).status).toBe(201);
    });
  });
}
