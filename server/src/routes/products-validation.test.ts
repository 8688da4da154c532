import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

const valid = { title: "Lamp", price: 10, product_type: "physical" };

/** Each case: a body change and the issue path it must produce. */
const CREATE_CASES: [string, Record<string, unknown>, string][] = [
  ["title of the wrong type", { title: 42 }, "title"],
  ["empty title", { title: "" }, "title"],
  ["blank title", { title: "   " }, "title"],
  ["huge title", { title: "t".repeat(201) }, "title"],
  ["title of 201 letters outside the BMP", { title: "\u{1d41a}".repeat(201) }, "title"],
  ["missing title", { title: undefined }, "title"],
  ["price as a string", { price: "10" }, "price"],
  ["negative price", { price: -0.01 }, "price"],
  ["absurd price", { price: 1e12 }, "price"],
  ["missing price", { price: undefined }, "price"],
  ["negative original_price", { original_price: -1 }, "original_price"],
  ["delivery_price as a string", { delivery_price: "abc" }, "delivery_price"],
  ["unknown product_type", { product_type: "digital" }, "product_type"],
  ["missing product_type", { product_type: undefined }, "product_type"],
  ["description of the wrong type", { description: 5 }, "description"],
  ["huge description", { description: "d".repeat(5001) }, "description"],
  ["images not an array", { images: "https://cdn.example/a.png" }, "images"],
  ["an image that is not a URL", { images: ["not a url"] }, "images.0"],
  ["an image URL that is not http", { images: ["https://cdn.example/a.png", "ftp://cdn.example/b.png"] }, "images.1"],
  ["a javascript: image URL", { images: ["javascript:alert(1)"] }, "images.0"],
  ["too many images", { images: Array.from({ length: 21 }, (_, i) => `https://cdn.example/${i}.png`) }, "images"],
  ["an unknown field", { color: "red" }, ""],
];

const UPDATE_CASES: [string, Record<string, unknown>, string][] = [
  ["title null", { title: null }, "title"],
  ["price null", { price: null }, "price"],
  ["negative price", { price: -5 }, "price"],
  ["unknown product_type", { product_type: "virtual" }, "product_type"],
  ["remove_image_ids with a non-uuid", { remove_image_ids: ["../x"] }, "remove_image_ids.0"],
  ["reorder_images item without display_order", { reorder_images: [{ id: "3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f" }] }, "reorder_images.0.display_order"],
  ["reorder_images with a negative order", { reorder_images: [{ id: "3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f", display_order: -1 }] }, "reorder_images.0.display_order"],
  ["an unknown field", { deleted_at: null }, ""],
  ["id is not writable", { id: "3f2b8c1e-1d2a-4c3b-9e8f-0a1b2c3d4e5f" }, ""],
];

for (const storage of testStorages()) {
  describe(`product validation (${storage})`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp({ storage });
    });
    afterEach(async () => {
      await t.close();
    });

    const issuesOf = (res: Parameters<typeof expectError>[0]) => {
      const error = expectError(res, 400, "validation_error");
      expect(Array.isArray(error.details.issues)).toBe(true);
      for (const issue of error.details.issues) {
        expect(Object.keys(issue).sort()).toEqual(["code", "message", "path"]);
        expect(typeof issue.message).toBe("string");
      }
      return error.details.issues as { path: string; code: string; message: string }[];
    };

    it.each(CREATE_CASES)("refuses a create with %s", async (_, change, path) => {
      const res = await t.call("POST", "products", { body: { ...valid, ...change } });
      const issues = issuesOf(res);
      expect(issues.map((i) => i.path)).toContain(path);
      expect((await t.call("GET", "products")).json.data).toEqual([]);
    });

    it("lists every bad field at once", async () => {
      const res = await t.call("POST", "products", { body: { title: 1, price: -1, product_type: "x", images: ["nope"], extra: true } });
      const paths = issuesOf(res).map((i) => i.path);
      expect(paths).toEqual(expect.arrayContaining(["title", "price", "product_type", "images.0", ""]));
      expect(issuesOf(await t.call("POST", "products", { body: {} })).map((i) => i.path).sort()).toEqual(["price", "product_type", "title"]);
    });

    it("counts lengths in code points, as the document's maxLength does", async () => {
      // 200 letters of two UTF-16 units each: within maxLength 200, so the document and the server admit it.
      const res = await t.call("POST", "products", { body: { ...valid, title: "\u{1d41a}".repeat(200) } });
      expect(res.status).toBe(201);
      expect([...res.json.data.title]).toHaveLength(200);
    });

    it("reads an empty body without a Content-Type as {}, and names the missing fields", async () => {
      const res = await t.call("POST", "products");
      expect(issuesOf(res).map((i) => i.path).sort()).toEqual(["price", "product_type", "title"]);
    });

    it.each(["null", "[]", "\"text\"", "42", "true"])("refuses a create whose JSON body is %s", async (raw) => {
      issuesOf(await t.call("POST", "products", { raw, headers: { "content-type": "application/json" } }));
    });

    it.each(UPDATE_CASES)("refuses an update with %s and keeps the product", async (_, change, path) => {
      const created = (await t.call("POST", "products", { body: valid })).json.data;
      const res = await t.call("PATCH", `products/${created.id}`, { body: change });
      expect(issuesOf(res).map((i) => i.path)).toContain(path);
      expect((await t.call("GET", `products/${created.id}`)).json.data).toEqual(created);
    });

    it("refuses image ids of another product in remove and reorder", async () => {
      const a = (await t.call("POST", "products", { body: { ...valid, images: ["https://cdn.example/a.png"] } })).json.data;
      const b = (await t.call("POST", "products", { body: { ...valid, images: ["https://cdn.example/b.png"] } })).json.data;
      const foreign = b.images[0].id;
      const removed = issuesOf(await t.call("PATCH", `products/${a.id}`, { body: { remove_image_ids: [foreign] } }));
      expect(removed).toEqual([expect.objectContaining({ path: "remove_image_ids.0", code: "unknown_image" })]);
      const reordered = issuesOf(await t.call("PATCH", `products/${a.id}`, { body: { reorder_images: [{ id: foreign, display_order: 0 }] } }));
      expect(reordered).toEqual([expect.objectContaining({ path: "reorder_images.0.id", code: "unknown_image" })]);
      const both = issuesOf(await t.call("PATCH", `products/${a.id}`, {
        body: { remove_image_ids: [a.images[0].id], reorder_images: [{ id: a.images[0].id, display_order: 1 }] },
      }));
      expect(both[0]).toMatchObject({ path: "reorder_images.0.id", code: "conflict" });
      expect((await t.call("GET", `products/${a.id}`)).json.data).toEqual(a);
      expect((await t.call("GET", `products/${b.id}`)).json.data).toEqual(b);
    });

    it("refuses multipart fields that are not numbers, and files that are not images", async () => {
      const form = (fields: Record<string, string>, file?: [string, Uint8Array | string]) => {
        const f = new FormData();
        for (const [k, v] of Object.entries(fields)) f.set(k, v);
        if (file) f.append(file[0], new Blob([file[1] as BlobPart]), "f.png");
        return f;
      };
      const base = { title: "Poster", price: "5", product_type: "physical" };
      expect(issuesOf(await t.call("POST", "products", { raw: form({ ...base, price: "five" }) })).map((i) => i.path)).toContain("price");
      expect(issuesOf(await t.call("POST", "products", { raw: form({ ...base, price: "-5" }) })).map((i) => i.path)).toContain("price");
      expect(issuesOf(await t.call("POST", "products", { raw: form({ ...base, extra: "1" }) })).map((i) => i.path)).toContain("");
      expect(issuesOf(await t.call("POST", "products", { raw: form(base, ["images", "GIF88a not really"]) }))[0].code).toBe("invalid_image");
      expect(issuesOf(await t.call("POST", "products", { raw: form(base, ["avatar", "x"]) }))[0].code).toBe("unexpected_file");
      expect((await t.call("GET", "products")).json.data).toEqual([]);
      expect(await t.core.media.paths()).toEqual([]);
    });
  });
}
