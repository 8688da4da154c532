import { afterEach, describe, expect, it } from "vitest";
import { countStored, diffSnapshots, isIdempotencyKey, takeSnapshot } from "./fuzz-snapshot.js";
import { createTestApp, testStorages, type TestApp } from "./test-app.js";

// The smallest PNG: one transparent pixel.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

/** What the fuzz suites and the isolation matrix compare: every table's rows and the media files. */
describe.each(testStorages())("store snapshots on %s storage", (storage) => {
  let t: TestApp;
  afterEach(() => t.close());

  it("name each row and media file a request adds or changes, and none for a refused one", async () => {
    t = await createTestApp({ storage });
    const start = await takeSnapshot(t.core);
    expect(diffSnapshots(start, await takeSnapshot(t.core))).toEqual([]);

    const form = new FormData();
    form.set("title", "Poster");
    form.set("price", "12");
    form.set("product_type", "physical");
    form.append("images", new Blob([PNG]), "poster.png");
    const created = await t.call("POST", "products", { raw: form, headers: { "idempotency-key": "snap-1" } });
    expect(created.status).toBe(201);
    const product = created.json.data;
    const afterCreate = await takeSnapshot(t.core);
    const added = diffSnapshots(start, afterCreate);
    expect(added).toContain(`+products:${JSON.stringify([product.id])}`);
    expect(added).toContain(`+product_images:${JSON.stringify([product.images[0].id])}`);
    // The stored answer to the key (kept under its hash) and the product.created event.
    expect(added.filter((key) => key.startsWith(`+idempotency_keys:["${t.creds.account_id}",`))).toHaveLength(1);
    expect(added.filter((key) => key.startsWith("+events:"))).toHaveLength(1);
    expect(added.filter((key) => key.startsWith("+media:"))).toHaveLength(1);
    expect(diffSnapshots(start, afterCreate, isIdempotencyKey).some((key) => key.startsWith("+idempotency_keys:"))).toBe(false);
    expect(await countStored(t.core)).toBe(start.size + added.length);

    const refused = await t.call("PATCH", `products/${product.id}`, { body: { price: -1 } });
    expect(refused.status).toBe(400);
    expect(diffSnapshots(afterCreate, await takeSnapshot(t.core))).toEqual([]);

    expect((await t.call("PATCH", `products/${product.id}`, { body: { title: "Poster, framed" } })).status).toBe(200);
    const patched = diffSnapshots(afterCreate, await takeSnapshot(t.core));
    expect(patched.filter((key) => !key.startsWith("+events:"))).toEqual([`~products:${JSON.stringify([product.id])}`]);

    expect((await t.call("DELETE", `products/${product.id}`)).status).toBe(204);
    // A product is deleted softly: its row says when.
    const deleted = diffSnapshots(afterCreate, await takeSnapshot(t.core));
    expect(deleted).toContain(`~products:${JSON.stringify([product.id])}`);
  });
});
