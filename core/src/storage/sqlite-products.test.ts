import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../testing/temp-dirs.js";
import { toProductEntry, type ProductRecord } from "../products/product-view.js";
import { createStores, type Stores } from "./create-storage.js";
import { DATABASE_FILE, openDatabase } from "./sqlite-database.js";
import { productTables } from "./sqlite-products.js";

const PARENT = "acct:shop:products";
const product = (id: string, title: string, bytes: number[], deleted = false): ProductRecord => ({
  id,
  account_id: "shop",
  title,
  description: null,
  price: 10,
  original_price: null,
  delivery_price: null,
  product_type: "physical",
  images: bytes.map((b, i) => ({
    id: `${id}-${i}`,
    url: `/media/${id}-${i}.png`,
    media_path: `products/${id}-${i}.png`,
    media_type: "image/png",
    display_order: i,
    created_at: "2026-01-01T00:00:00.000Z",
    bytes: b,
  })),
  checkout_fields: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  deleted_at: deleted ? "2026-01-02T00:00:00.000Z" : null,
});

/** The totals recounted from the records themselves. */
async function recount(stores: Stores) {
  let products = 0;
  let bytes = 0;
  for (const key of await stores.data.getKeys(`${PARENT}:`)) {
    const record = (await stores.data.getItem<ProductRecord>(key))!;
    if (record.deleted_at) continue;
    products += 1;
    bytes += record.images.reduce((sum, image) => sum + (image.bytes ?? 0), 0);
  }
  return { products, bytes };
}

const usage = (stores: Stores) => {
  const { products, bytes } = stores.products!.usage(PARENT, `${PARENT}:none`, []);
  return { products, bytes };
};

describe("the products tables of the embedded store", () => {
  const temp = useTempDirs();

  it("keeps each account's live products and their upload bytes in step with every kind of write", async () => {
    const stores = createStores("sqlite", temp("totals"));
    try {
      await stores.data.setItem(`${PARENT}:a`, product("a", "A", [100, 20]));
      await stores.batch([
        { key: `${PARENT}:b`, value: product("b", "B", [5]) },
        { key: `${PARENT}:c`, value: product("c", "C", []) },
        { key: "acct:other:pages:p", value: { id: "p", images: [{ bytes: 1 }] } },
      ]);
      expect(usage(stores)).toEqual({ products: 3, bytes: 125 });
      // An edit that swaps images, a soft delete, a hard delete: each in the transaction of its write.
      await stores.data.setItem(`${PARENT}:a`, product("a", "A", [7]));
      await stores.data.setItem(`${PARENT}:b`, product("b", "B", [5], true));
      expect(usage(stores)).toEqual(await recount(stores));
      await stores.data.removeItem(`${PARENT}:c`);
      expect(usage(stores)).toEqual({ products: 1, bytes: 7 });
      await stores.data.setItem(`${PARENT}:b`, product("b", "B", [9]));
      expect(usage(stores)).toEqual({ products: 2, bytes: 16 });
      await stores.data.clear(`${PARENT}:`);
      expect(usage(stores)).toEqual({ products: 0, bytes: 0 });
      await stores.replace!({ [`${PARENT}:d`]: product("d", "D", [3, 4]) }, {});
      expect(usage(stores)).toEqual({ products: 1, bytes: 7 });
      // A record that is not JSON is stored (lp doctor reports it) and counts for nothing.
      await stores.data.setItem(`${PARENT}:torn`, "{\"id\":");
      expect(await stores.data.hasItem(`${PARENT}:torn`)).toBe(true);
      expect(usage(stores)).toEqual({ products: 1, bytes: 7 });
    } finally {
      await stores.dispose();
    }
  });

  it("counts the totals of a database made before they were kept, when it is opened", async () => {
    const dir = temp("older");
    const stores = createStores("sqlite", dir);
    for (const [id, bytes] of [["a", [10]], ["b", [1, 2]], ["c", []]] as const) await stores.data.setItem(`${PARENT}:${id}`, product(id, id, [...bytes], id === "c"));
    await stores.dispose();
    const db = openDatabase(join(dir, DATABASE_FILE));
    db.exec("DROP TRIGGER product_totals_insert; DROP TRIGGER product_totals_update; DROP TRIGGER product_totals_delete; DROP TABLE product_totals;");
    db.close();
    const reopened = createStores("sqlite", dir);
    try {
      expect(usage(reopened)).toEqual({ products: 2, bytes: 13 });
      await reopened.data.setItem(`${PARENT}:e`, product("e", "e", [1]));
      expect(usage(reopened)).toEqual({ products: 3, bytes: 14 });
    } finally {
      await reopened.dispose();
    }
  });

  it("reads the claimed product's text and which pending writes have landed in the same read as the totals", async () => {
    const stores = createStores("sqlite", temp("states"));
    try {
      const before = JSON.stringify(product("a", "A", []));
      await stores.data.setItem(`${PARENT}:a`, product("a", "A", []));
      await stores.data.setItem(`${PARENT}:b`, product("b", "B", []));
      const read = stores.products!.usage(PARENT, `${PARENT}:a`, [
        [`${PARENT}:a`, before],
        [`${PARENT}:b`, null],
        [`${PARENT}:missing`, null],
        [`${PARENT}:a`, "an older text"],
      ]);
      expect(read).toEqual({ products: 2, bytes: 0, claimed: before, landed: [false, true, false, true] });
      expect(stores.products!.usage(PARENT, `${PARENT}:missing`, []).claimed).toBeNull();
    } finally {
      await stores.dispose();
    }
  });

  it("orders a list by title as the products entry's sort key does, ties by key, from any position", async () => {
    const dir = temp("titles");
    const stores = createStores("sqlite", dir);
    const letters = fc.string({ unit: fc.constantFrom("a", "B", "b", "É", "é", "Z", "_", " ", "İ"), maxLength: 4 });
    const titles = fc.sample(letters, { numRuns: 60, seed: 7 });
    try {
      await stores.batch(titles.map((title, i) => ({ key: `${PARENT}:${String(i).padStart(3, "0")}`, value: product(String(i).padStart(3, "0"), title, []) })));
      const db = openDatabase(join(dir, DATABASE_FILE), { readonly: true });
      const tables = productTables(db);
      const expected = titles
        .map((title, i) => [toProductEntry(product("x", title, []))!.title, `${PARENT}:${String(i).padStart(3, "0")}`] as const)
        .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0]))));
      const walked: (readonly [string, string])[] = [];
      let after: readonly [string, string] | null = null;
      for (;;) {
        const rows = tables.page(PARENT, "title", false, after, 7);
        walked.push(...rows.map(([key, , value]) => [value as string, key] as const));
        if (rows.length < 7) break;
        after = [rows[6]![2] as string, rows[6]![0]];
      }
      db.close();
      expect(walked).toEqual(expected);
    } finally {
      await stores.dispose();
    }
  });
});
