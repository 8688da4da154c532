import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

for (const storage of testStorages()) {
  describe(`products (${storage})`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp({ storage });
    });
    afterEach(async () => {
      await t.close();
    });

    it("creates, reads, lists, updates and soft-deletes a product", async () => {
      const created = await t.call("POST", "products", {
        body: { title: "Desk lamp", price: 39.5, product_type: "physical", images: ["https://cdn.example/lamp.png", "https://cdn.example/x"] },
      });
      expect(created.status).toBe(201);
      const p = created.json.data;
      expect(p).toMatchObject({ title: "Desk lamp", price: 39.5, description: null, product_type: "physical", original_price: null });
      expect(p.images.map((i: any) => [i.media_type, i.display_order])).toEqual([["image/png", 0], ["image/jpeg", 1]]);
      expect(p.preview_image_url).toBe("https://cdn.example/lamp.png");
      expect(p.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(created.headers.get("x-request-id")).toMatch(/^req_/);

      const got = await t.call("GET", `products/${p.id}`);
      expect(got.json.data).toEqual(p);

      const listed = await t.call("GET", "products");
      expect(listed.json.data).toHaveLength(1);
      expect(listed.json.data[0].images).toBeUndefined();
      expect(listed.json.pagination).toEqual({ next_cursor: null, has_more: false });

      const [first, second] = p.images;
      const patched = await t.call("PATCH", `products/${p.id}`, {
        body: { title: "Desk lamp 2", description: "Warm light", reorder_images: [{ id: first.id, display_order: 5 }], images: ["https://cdn.example/c.webp"] },
      });
      expect(patched.status).toBe(200);
      expect(patched.json.data.title).toBe("Desk lamp 2");
      expect(patched.json.data.images.map((i: any) => i.id)).toEqual([second.id, first.id, patched.json.data.images[2].id]);
      expect(patched.json.data.images[2].url).toBe("https://cdn.example/c.webp");
      expect(patched.json.data.images.map((i: any) => i.display_order)).toEqual([0, 1, 2]);

      const removed = await t.call("PATCH", `products/${p.id}`, { body: { remove_image_ids: [second.id] } });
      expect(removed.json.data.images).toHaveLength(2);

      expect((await t.call("DELETE", `products/${p.id}`)).status).toBe(204);
      expect((await t.call("GET", `products/${p.id}`)).json.error).toMatchObject({ code: "not_found", details: { resource: "product" } });
      expect((await t.call("GET", "products")).json.data).toEqual([]);
      expect((await t.call("DELETE", `products/${p.id}`)).status).toBe(404);
    });

    it("accepts multipart uploads checked by their bytes and serves them", async () => {
      const form = new FormData();
      form.set("title", "Poster");
      form.set("price", "12.00");
      form.set("product_type", "physical");
      form.set("description", "");
      form.append("images", new Blob([PNG]), "poster.bin");
      const res = await t.call("POST", "products", { raw: form });
      expect(res.status).toBe(201);
      const image = res.json.data.images[0];
      expect(image.media_type).toBe("image/png");
      expect(res.json.data.price).toBe(12);
      expect(res.json.data.description).toBeNull();
      const path = new URL(image.url).pathname;
      const media = await t.app.request(path);
      expect(media.status).toBe(200);
      expect(media.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await media.arrayBuffer()).equals(PNG)).toBe(true);

      const bad = new FormData();
      bad.set("title", "Fake");
      bad.set("price", "1");
      bad.set("product_type", "service");
      bad.append("images", new Blob(["<html>not an image</html>"]), "evil.png");
      const refused = await t.call("POST", "products", { raw: bad });
      expect(refused.status).toBe(400);
      expect(refused.json.error.details.issues[0].code).toBe("invalid_image");
      expect((await t.call("GET", "products")).json.data).toHaveLength(1);
    });

    it("gives a placeholder preview when a product has no image", async () => {
      const res = await t.call("POST", "products", { body: { title: "Consulting", price: 100, product_type: "service" } });
      const url = new URL(res.json.data.preview_image_url);
      expect(url.pathname).toMatch(/^\/media\/placeholders\/acct_dev\/[0-9a-f-]+\.svg$/);
      const svg = await t.app.request(url.pathname);
      expect(svg.headers.get("content-type")).toBe("image/svg+xml");
      expect(await svg.text()).toContain("<svg");
    });
  });
}
