import fc from "fast-check";
import { CompiledQuery, sql, type KyselyPlugin, type RootOperationNode } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { openDatabase, type Database } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { LpError } from "../errors.js";
import { createCursorCodec } from "../lists/cursor.js";
import { toSort } from "../lists/list-query.js";
import { describeDatabases } from "../testing/databases.js";
import { createProductRepository, type ProductRepository } from "./product-repository.js";
import type { ProductImageRecord, ProductRecord } from "./product-view.js";
import { productListSchema, type ProductListQuery } from "./products-service.js";

/** The created bounds as the lists before the tables applied them: exclusive, dates or date-times. */
function withinBounds(createdAt: string, after?: string, before?: string): boolean {
  const t = Date.parse(createdAt);
  if (after !== undefined && !(t > Date.parse(after))) return false;
  if (before !== undefined && !(t < Date.parse(before))) return false;
  return true;
}

const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
const pid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const iid = (n: number) => `11111111-0000-4000-8000-${String(n).padStart(12, "0")}`;
const cursors = createCursorCodec(Buffer.alloc(32, 7));

const account = (account_id: string, quotas: { product_quota?: number; media_quota_bytes?: number } = {}) => ({
  account_id,
  environment: "production" as const,
  currency: "USD",
  page_quota: 100,
  product_quota: quotas.product_quota ?? 10_000,
  media_quota_bytes: quotas.media_quota_bytes ?? 1_000_000,
  created_at: at(0),
  updated_at: at(0),
});

function product(n: number, fields: Partial<ProductRecord> = {}): ProductRecord {
  return {
    id: pid(n),
    account_id: "acct_a",
    title: `Product ${n}`,
    description: null,
    price: 10,
    original_price: null,
    delivery_price: null,
    product_type: "physical",
    images: [],
    checkout_fields: null,
    created_at: at(1),
    updated_at: at(1),
    deleted_at: null,
    ...fields,
  };
}

const urlImage = (n: number, display_order: number): ProductImageRecord => ({ id: iid(n), url: `https://img.test/${n}.jpg`, media_type: "image/jpeg", display_order, created_at: at(1), media_path: null });
const upload = (n: number, display_order: number, bytes: number): ProductImageRecord => ({
  id: iid(n),
  url: `http://lp.test/media/products/p/${n}.png`,
  media_type: "image/png",
  display_order,
  created_at: at(1),
  media_path: `products/p/${n}.png`,
  bytes,
});

const query = (q: Record<string, string | number | undefined> = {}): ProductListQuery => productListSchema.parse(q);

/** Every id a listing gives, following its cursors, and the size of each page. */
async function listAll(repo: ProductRepository, database: Database, accountId: string, q: Record<string, string | number | undefined>) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await repo.list(database.db, accountId, query({ ...q, cursor }));
    ids.push(...page.data.map((p) => p.id));
    sizes.push(page.data.length);
    expect(page.pagination.has_more).toBe(page.pagination.next_cursor !== null);
    if (!page.pagination.next_cursor) return { ids, sizes };
    cursor = page.pagination.next_cursor;
  }
  throw new Error("the listing did not end");
}

const compare = (a: unknown, b: unknown) => (a === b ? 0 : (a as number) < (b as number) ? -1 : 1);

/**
 * A product as the list's model sorts and filters it: the title with A-Z lowered and nothing else (the key
 * `lower(title)` of migration 0002 on both engines), and `q` searched in the title, a line break and the
 * description, lowercased.
 */
const toEntry = (r: ProductRecord) => ({
  id: r.id,
  created_at: r.created_at,
  updated_at: r.updated_at,
  title: r.title.replace(/[A-Z]+/g, (run) => run.toLowerCase()),
  price: r.price,
  product_type: r.product_type,
  text: `${r.title}\n${r.description ?? ""}`.toLowerCase(),
});

/** The ids a listing should give: the model's entries, filtered by the list's own filter, in keyset order. */
function expected(records: ProductRecord[], accountId: string, q: ProductListQuery): string[] {
  const { field, descending } = toSort(q.sort);
  const needle = q.q?.toLowerCase();
  const entries = records
    .filter((r) => r.account_id === accountId && !r.deleted_at)
    .map(toEntry)
    .filter((e) => (!q.product_type || e.product_type === q.product_type) && (!needle || e.text.includes(needle)) && withinBounds(e.created_at, q.created_after, q.created_before));
  const key = field as "created_at" | "updated_at" | "title" | "price";
  entries.sort((a, b) => compare(a[key], b[key]) || compare(a.id, b.id));
  if (descending) entries.reverse();
  return entries.map((e) => e.id);
}

describeDatabases("the products repository", ({ kind, open, target }) => {
  let database: Database;
  let repo: ProductRepository;
  beforeEach(async () => {
    database = await open();
    repo = createProductRepository({ dialect: database.dialect, cursors });
    await database.db.insertInto("accounts").values([account("acct_a"), account("acct_b")]).execute();
  });
  const create = (record: ProductRecord) => database.transaction((tx) => repo.createWithinQuota(tx, record));

  it("stores a product with its images and reads it back with its images in display order", async () => {
    const record = product(1, { description: "Soft", original_price: 12.5, delivery_price: 0, product_type: "service", images: [urlImage(1, 2), upload(2, 0, 300), urlImage(3, 1)] });
    await create(record);
    const read = await repo.read(database.db, "acct_a", pid(1));
    expect(read).toEqual({ ...record, images: [upload(2, 0, 300), urlImage(3, 1), urlImage(1, 2)] });
    // An image given as a URL has no `bytes`, as records have always had.
    expect(Object.keys(read!.images[1]!)).not.toContain("bytes");
    expect(await repo.read(database.db, "acct_b", pid(1))).toBeNull();
    expect(await repo.read(database.db, "acct_a", pid(2))).toBeNull();
    await database.transaction((tx) => repo.insert(tx, product(2)));
    expect((await repo.read(database.db, "acct_a", pid(2)))?.images).toEqual([]);
  });

  it("refuses a product of an unknown account: the foreign key, nothing written", async () => {
    const error = await create(product(1, { account_id: "nobody", images: [urlImage(1, 0)] })).catch((e: unknown) => e);
    expect(isForeignKeyViolation(error)).toBe(true);
    expect(await database.db.selectFrom("products").selectAll().execute()).toEqual([]);
    expect(await database.db.selectFrom("product_images").selectAll().execute()).toEqual([]);
  });

  it("counts the products not deleted and the bytes of their uploads", async () => {
    await create(product(1, { images: [upload(1, 0, 100), upload(2, 1, 50), urlImage(3, 2)] }));
    await create(product(2, { images: [upload(4, 0, 7)] }));
    await create(product(3, { account_id: "acct_b", images: [upload(5, 0, 1000)] }));
    expect(await repo.usage(database.db, "acct_a")).toEqual({ products: 2, bytes: 157 });
    expect(await repo.softDelete(database.db, "acct_a", pid(2), at(2))).toBe(true);
    expect(await repo.usage(database.db, "acct_a")).toEqual({ products: 1, bytes: 150 });
    expect(await repo.usage(database.db, "acct_c")).toEqual({ products: 0, bytes: 0 });
  });

  it("keeps each account's totals equal to counting its products, through every kind of write", async () => {
    const counted = async () => {
      const rows = await database.db
        .selectFrom("products")
        .select(["account_id", sql<number>`count(*)`.as("products"), sql<number>`coalesce(sum(media_bytes), 0)`.as("bytes")])
        .where("deleted_at", "is", null)
        .groupBy("account_id")
        .orderBy("account_id")
        .execute();
      return rows.map((r) => ({ account_id: r.account_id, products: Number(r.products), bytes: Number(r.bytes) }));
    };
    const totals = async () =>
      (await database.db.selectFrom("product_totals").selectAll().where("products", ">", 0).orderBy("account_id").execute()).map((r) => ({ account_id: r.account_id, products: Number(r.products), bytes: Number(r.media_bytes) }));
    await create(product(1, { images: [upload(1, 0, 100)] }));
    // An import's insert, with no quota asked, and one already deleted (which counts for nothing).
    await database.transaction((tx) => repo.insert(tx, product(2, { account_id: "acct_b", images: [upload(2, 0, 40)] })));
    await database.transaction((tx) => repo.insert(tx, product(3, { images: [upload(3, 0, 9)], deleted_at: at(2) })));
    await database.transaction((tx) => repo.update(tx, product(1, { images: [upload(1, 0, 100), upload(4, 1, 25)] })));
    expect(await totals()).toEqual([
      { account_id: "acct_a", products: 1, bytes: 125 },
      { account_id: "acct_b", products: 1, bytes: 40 },
    ]);
    // A hand-made UPDATE and DELETE move them too: the database keeps them, not lp's code.
    await database.db.updateTable("products").set({ deleted_at: null }).where("id", "=", pid(3)).execute();
    await database.db.updateTable("products").set({ account_id: "acct_b" }).where("id", "=", pid(1)).execute();
    expect(await totals()).toEqual(await counted());
    expect(await totals()).toEqual([
      { account_id: "acct_a", products: 1, bytes: 9 },
      { account_id: "acct_b", products: 2, bytes: 165 },
    ]);
    await database.db.deleteFrom("products").where("id", "=", pid(2)).execute();
    expect(await repo.softDelete(database.db, "acct_a", pid(3), at(3))).toBe(true);
    expect(await totals()).toEqual(await counted());
    expect(await repo.usage(database.db, "acct_b")).toEqual({ products: 1, bytes: 125 });
    // An account removed takes its products and its totals with it.
    await database.db.deleteFrom("accounts").where("account_id", "=", "acct_b").execute();
    expect(await database.db.selectFrom("product_totals").selectAll().execute()).toEqual(kind === "postgres" ? [{ account_id: "acct_a", products: 0, media_bytes: 0 }] : [{ account_id: "acct_a", products: 0, media_bytes: 0 }]);
  });

  it("refuses a create past the product quota, and takes one again once a product is deleted", async () => {
    await database.db.updateTable("accounts").set({ product_quota: 2 }).where("account_id", "=", "acct_a").execute();
    await create(product(1));
    await create(product(2));
    const refusal = await create(product(3)).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(LpError);
    expect(refusal).toMatchObject({ code: "quota_exceeded", details: { quota: "products", limit: 2, used: 2 } });
    expect(await repo.read(database.db, "acct_a", pid(3))).toBeNull();
    await repo.softDelete(database.db, "acct_a", pid(1), at(2));
    await create(product(3));
    expect(await repo.usage(database.db, "acct_a")).toEqual({ products: 2, bytes: 0 });
  });

  it("refuses a create whose uploads pass the media quota; images given as URLs take none", async () => {
    await database.db.updateTable("accounts").set({ media_quota_bytes: 1000 }).where("account_id", "=", "acct_a").execute();
    await create(product(1, { images: [upload(1, 0, 600)] }));
    await expect(create(product(2, { images: [upload(2, 0, 401)] }))).rejects.toMatchObject({ code: "quota_exceeded", details: { quota: "media_bytes", limit: 1000, used: 600, requested: 401 } });
    await create(product(3, { images: [upload(3, 0, 400), urlImage(4, 1)] }));
    await create(product(4, { images: [urlImage(5, 0)] }));
    expect(await repo.usage(database.db, "acct_a")).toEqual({ products: 3, bytes: 1000 });
  });

  it("lets exactly the quota's creates through when 20 race into one account", async () => {
    await database.db.updateTable("accounts").set({ product_quota: 5 }).where("account_id", "=", "acct_a").execute();
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, n) => create(product(n + 1))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: "quota_exceeded", details: { quota: "products", limit: 5 } });
    expect(await repo.usage(database.db, "acct_a")).toEqual({ products: 5, bytes: 0 });
  });

  it("updates fields and replaces, reorders and adds images, keeping what an edit does not touch", async () => {
    const fields = [{ field_key: "size", label: "Size", field_type: "select" as const, is_required: true, options: ["S", "M"] }];
    await create(product(1, { title: "Old title", images: [urlImage(1, 0), upload(2, 1, 100), urlImage(3, 2)] }));
    await repo.setCheckoutFields(database.db, "acct_a", pid(1), fields);
    const current = (await repo.read(database.db, "acct_a", pid(1)))!;
    const edited: ProductRecord = {
      ...current,
      title: "New Title",
      description: "Now described",
      price: 20,
      original_price: 25,
      product_type: "service",
      updated_at: at(5),
      images: [urlImage(3, 0), upload(4, 1, 40), urlImage(1, 2)],
    };
    expect(await database.transaction((tx) => repo.update(tx, edited))).toBe(true);
    expect(await repo.read(database.db, "acct_a", pid(1))).toEqual({ ...edited, checkout_fields: fields, created_at: at(1) });
    expect(await repo.usage(database.db, "acct_a")).toEqual({ products: 1, bytes: 40 });
    // The search follows the text: the new title is found, the old one no longer.
    expect((await repo.list(database.db, "acct_a", query({ q: "new title" }))).data.map((p) => p.id)).toEqual([pid(1)]);
    expect((await repo.list(database.db, "acct_a", query({ q: "old" }))).data).toEqual([]);
    await repo.softDelete(database.db, "acct_a", pid(1), at(6));
    expect(await database.transaction((tx) => repo.update(tx, { ...edited, title: "After delete" }))).toBe(false);
    expect(await database.transaction((tx) => repo.update(tx, { ...edited, id: pid(9) }))).toBe(false);
    expect(await database.transaction((tx) => repo.update(tx, { ...edited, account_id: "acct_b" }))).toBe(false);
    expect((await repo.read(database.db, "acct_a", pid(1)))?.title).toBe("New Title");
  });

  it("refuses an edit whose uploads grow past the media quota, counting what it removes, and writes none of it", async () => {
    await database.db.updateTable("accounts").set({ media_quota_bytes: 1000 }).where("account_id", "=", "acct_a").execute();
    await create(product(1, { images: [upload(1, 0, 500)] }));
    await create(product(2, { images: [upload(2, 0, 300)] }));
    const current = (await repo.read(database.db, "acct_a", pid(1)))!;
    const grown = { ...current, title: "Grown", updated_at: at(3), images: [upload(1, 0, 500), upload(3, 1, 201)] };
    await expect(database.transaction((tx) => repo.update(tx, grown))).rejects.toMatchObject({ code: "quota_exceeded", details: { quota: "media_bytes", limit: 1000, used: 800, requested: 201 } });
    expect(await repo.read(database.db, "acct_a", pid(1))).toEqual(current);
    // Replacing the 500-byte upload by a 700-byte one asks for 200 more: it fits.
    expect(await database.transaction((tx) => repo.update(tx, { ...current, images: [upload(3, 0, 700)] }))).toBe(true);
    expect(await repo.usage(database.db, "acct_a")).toEqual({ products: 2, bytes: 1000 });
  });

  it("soft-deletes once, keeping the product readable and out of lists and totals", async () => {
    await create(product(1, { images: [upload(1, 0, 10)] }));
    await create(product(2));
    expect(await repo.softDelete(database.db, "acct_b", pid(1), at(3))).toBe(false);
    expect(await repo.softDelete(database.db, "acct_a", pid(1), at(3))).toBe(true);
    expect(await repo.softDelete(database.db, "acct_a", pid(1), at(4))).toBe(false);
    expect(await repo.read(database.db, "acct_a", pid(1))).toMatchObject({ deleted_at: at(3), updated_at: at(3), images: [upload(1, 0, 10)] });
    expect((await repo.list(database.db, "acct_a", query())).data.map((p) => p.id)).toEqual([pid(2)]);
  });

  it("sets checkout fields on a product, deleted or not, without touching updated_at", async () => {
    const fields = [{ field_key: "note", label: "Note", field_type: "textarea" as const, is_required: false, options: [] }];
    await create(product(1));
    await repo.softDelete(database.db, "acct_a", pid(1), at(2));
    expect(await repo.setCheckoutFields(database.db, "acct_a", pid(1), fields)).toBe(true);
    expect(await repo.read(database.db, "acct_a", pid(1))).toMatchObject({ checkout_fields: fields, updated_at: at(2) });
    expect(await repo.setCheckoutFields(database.db, "acct_a", pid(1), null)).toBe(true);
    expect((await repo.read(database.db, "acct_a", pid(1)))?.checkout_fields).toBeNull();
    expect(await repo.setCheckoutFields(database.db, "acct_b", pid(1), fields)).toBe(false);
  });

  it("lists items with their first image, and pages every sort both ways across ties", async () => {
    // Ties on every key: created_at (three at minute 2), updated_at, titles equal but for ASCII case, prices.
    const titles = ["apple", "Apple", "APPLE", "banana", "Éclair", "éclair", "cherry", "Banana", "zucchini", "date", "apple pie", "Cherry"];
    const records = titles.map((title, i) =>
      product(i + 1, {
        title,
        price: [5, 5, 1.5, 20, 5, 0, 1.5, 20, 100, 5, 0, 7][i]!,
        created_at: at([2, 2, 2, 3, 4, 4, 5, 6, 7, 7, 8, 9][i]!),
        updated_at: at([10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 14, 14][i]!),
        images: i % 3 === 0 ? [urlImage(100 + i, 1), urlImage(200 + i, 0)] : [],
      }),
    );
    for (const r of records) await create(r);
    await create(product(50, { account_id: "acct_b", title: "other account" }));
    await create(product(51, { title: "deleted" }));
    await repo.softDelete(database.db, "acct_a", pid(51), at(20));

    const first = await repo.list(database.db, "acct_a", query({ sort: "created_at", per_page: 2 }));
    expect(first.data).toEqual([
      { ...withoutImages(records[0]!), first_image_url: urlImage(200, 0).url },
      { ...withoutImages(records[1]!), first_image_url: null },
    ]);
    for (const sort of ["created_at", "-created_at", "updated_at", "-updated_at", "title", "-title", "price", "-price"]) {
      const { ids, sizes } = await listAll(repo, database, "acct_a", { sort, per_page: 3 });
      expect(ids, sort).toEqual(expected(records, "acct_a", query({ sort })));
      expect(sizes, sort).toEqual([3, 3, 3, 3]);
    }
    // The default: newest first, 20 a page.
    const all = await repo.list(database.db, "acct_a", query());
    expect(all.data.map((p) => p.id)).toEqual(expected(records, "acct_a", query()));
    expect(all.pagination).toEqual({ next_cursor: null, has_more: false });
  });

  it("refuses a cursor given to another sort or other filters", async () => {
    for (let n = 1; n <= 3; n++) await create(product(n, { created_at: at(n) }));
    const page = await repo.list(database.db, "acct_a", query({ per_page: 1, product_type: "physical" }));
    const cursor = page.pagination.next_cursor!;
    expect(cursor).toEqual(expect.any(String));
    expect((await repo.list(database.db, "acct_a", query({ per_page: 1, product_type: "physical", cursor }))).data.map((p) => p.id)).toEqual([pid(2)]);
    await expect(repo.list(database.db, "acct_a", query({ per_page: 1, cursor }))).rejects.toMatchObject({ code: "invalid_cursor" });
    await expect(repo.list(database.db, "acct_a", query({ per_page: 1, product_type: "physical", sort: "price", cursor }))).rejects.toMatchObject({ code: "invalid_cursor" });
  });

  it("filters by type and by exclusive created bounds given as dates or date-times with offsets", async () => {
    const records = [
      product(1, { created_at: "2026-02-28T23:59:59.999Z" }),
      product(2, { created_at: "2026-03-01T00:00:00.000Z", product_type: "service" }),
      product(3, { created_at: "2026-03-01T09:30:00.000Z" }),
      product(4, { created_at: "2026-03-02T00:00:00.000Z", product_type: "service" }),
      product(5, { created_at: "2026-03-02T00:00:00.001Z" }),
    ];
    for (const r of records) await create(r);
    for (const q of [
      { product_type: "service" },
      { product_type: "physical" },
      { created_after: "2026-03-01" },
      { created_before: "2026-03-02" },
      { created_after: "2026-03-01", created_before: "2026-03-02" },
      { created_after: "2026-03-01T10:30:00+01:00" },
      { created_before: "2026-03-01T09:30:00.0005Z" },
      { created_after: "2026-03-01T19:00:00-05:00", product_type: "physical" },
      { created_after: "0000-01-01T00:00:00+01:00" },
      { created_before: "9999-12-31T20:00:00-05:00" },
      { created_after: "9999-12-31T20:00:00-05:00" },
    ]) {
      const { ids } = await listAll(repo, database, "acct_a", { ...q, per_page: 2 });
      expect(ids, JSON.stringify(q)).toEqual(expected(records, "acct_a", query(q)));
    }
    expect((await listAll(repo, database, "acct_a", { created_after: "2026-03-01" })).ids).toEqual([pid(5), pid(4), pid(3)]);
  });

  it("searches the title and description as today's lists do: any case, any script, % and _ as themselves", async () => {
    const records = [
      product(1, { title: "ÉCLAIR au café", description: null }),
      product(2, { title: "Plain", description: "ΟΔΥΣΣΕΥΣ travels" }),
      product(3, { title: "100% cotton", description: "a_b" }),
      product(4, { title: "1000 cotton", description: "axb" }),
      product(5, { title: "İstanbul", description: "Kelvin" }),
      product(6, { title: "Straße", description: "ends\nhere" }),
    ];
    for (const r of records) await create(r);
    const found = async (q: string) => (await listAll(repo, database, "acct_a", { q, sort: "title" })).ids;
    expect(await found("éclair")).toEqual([pid(1)]);
    expect(await found("CAFÉ")).toEqual([pid(1)]);
    // Final sigma: the description's last Σ lowercases to ς, so σ in its place is not found.
    expect(await found("οδυσσευ\u03c3")).toEqual([]);
    expect(await found("οδυσσευ\u03c2")).toEqual([pid(2)]);
    expect(await found("ΟΔΥΣΣΕΥΣ")).toEqual(expected(records, "acct_a", query({ q: "ΟΔΥΣΣΕΥΣ", sort: "title" })));
    expect(await found("%")).toEqual([pid(3)]);
    expect(await found("0%")).toEqual([pid(3)]);
    expect(await found("a_b")).toEqual([pid(3)]);
    expect(await found("_")).toEqual([pid(3)]);
    expect(await found("kelvin")).toEqual([pid(5)]);
    expect(await found("cotton\na")).toEqual([pid(3), pid(4)]);
    expect(await found("a\0b")).toEqual([]);
    for (const needle of ["i̇stanbul", "istanbul", "STRASSE", "straße", "e\nends", "here", "", "ΣΕΥΣ", "σευς"]) {
      expect(await found(needle), needle).toEqual(expected(records, "acct_a", query({ q: needle, sort: "title" })));
    }
  });

  it("finds what today's search finds for generated text of letters whose lowercase is not plain", async () => {
    // The dotted capital I and the Kelvin sign lowercase to ASCII, final sigma depends on its neighbours,
    // É and Å lowercase out of ASCII; a line break joins title and description.
    const units = ["a", "B", "i", "K", "k", "İ", "K", "Σ", "É", "é", "Å", "\n", " ", "-", "%", "_"];
    const text = (max: number) => fc.string({ unit: fc.constantFrom(...units), maxLength: max });
    const texts = fc.sample(fc.tuple(text(6), fc.option(text(6), { nil: null })), { numRuns: 60, seed: 21 });
    const needles = fc.sample(text(3).filter((n) => n.length > 0), { numRuns: 30, seed: 22 });
    const records = texts.map(([title, description], i) => product(i + 1, { title: title || "x", description, created_at: at(i % 50) }));
    for (const r of records) await create(r);
    for (const q of needles) {
      const page = await repo.list(database.db, "acct_a", query({ q, per_page: 100 }));
      expect(page.data.map((p) => p.id), JSON.stringify(q)).toEqual(expected(records, "acct_a", query({ q })));
    }
  });

  it("reads the default sort's page from its index, without sorting", async () => {
    const rows = Array.from({ length: 1000 }, (_, n) =>
      product(n + 1, { account_id: n % 2 ? "acct_a" : "acct_b", created_at: at(n % 60), title: `t${n}`, images: [urlImage(2 * n, 1), urlImage(2 * n + 1, 0)] }),
    );
    for (let i = 0; i < rows.length; i += 100) await database.transaction(async (tx) => Promise.all(rows.slice(i, i + 100).map((r) => repo.insert(tx, r))));
    await sql`analyze`.execute(database.db);
    const first = await repo.list(database.db, "acct_a", query());
    const cursor = first.pagination.next_cursor!;
    for (const q of [query(), query({ cursor }), query({ product_type: "physical" })]) {
      // The query the page ran, captured as compiled, then explained.
      const plan = await explain(database, (db) => repo.list(db, "acct_a", q));
      const text = plan.join("\n");
      const index = q.product_type ? "products_by_type" : "products_by_created_at";
      if (database.dialect === "sqlite") {
        expect(text).toMatch(new RegExp(`SEARCH products USING (COVERING )?INDEX ${index}`));
        expect(text).not.toMatch(/TEMP B-TREE|SCAN products/);
      } else {
        expect(text).toMatch(new RegExp(`Index Scan (Backward )?using ${index} on products`));
        expect(text).not.toMatch(/Seq Scan|Sort/);
      }
    }
    // The quota's totals are one row by its key, however many products the account has (PostgreSQL reads a
    // table this small whole, as it should).
    const usage = (await explain(database, (db) => repo.usage(db, "acct_a"))).join("\n");
    if (database.dialect === "sqlite") expect(usage).toMatch(/SEARCH product_totals USING INDEX sqlite_autoindex_product_totals_1 \(account_id=\?\)/);
    expect(usage).not.toMatch(/products(?!_totals)/);
  });

  it.runIf(kind === "postgres")("orders and searches alike on a database whose default collation is ICU's en-US", async () => {
    const where = await target();
    if (where.kind !== "postgres") throw new Error("a PostgreSQL target was expected");
    const name = `lp_icu_${process.pid}`;
    await sql`create database ${sql.id(name)} template template0 locale_provider icu icu_locale 'en-US' locale 'C.utf8'`.execute(database.db);
    const icu = await openDatabase({ kind: "postgres", url: where.url.replace(/[^/]+$/, name) });
    try {
      const repoIcu = createProductRepository({ dialect: icu.dialect, cursors });
      await icu.db.insertInto("accounts").values(account("acct_a")).execute();
      // Byte order after A-Z folding: "fa" < "Éz" < "éa"; en-US would say "éa" < "fa" and fold É too.
      const records = ["éa", "fa", "Éz", "a-b", "ab", "a_b", "B"].map((title, i) => product(i + 1, { title }));
      for (const r of records) await icu.transaction((tx) => repoIcu.createWithinQuota(tx, r));
      for (const sort of ["title", "-title"]) {
        const { ids } = await listAll(repoIcu, icu, "acct_a", { sort, per_page: 2 });
        expect(ids, sort).toEqual(expected(records, "acct_a", query({ sort })));
      }
      expect((await listAll(repoIcu, icu, "acct_a", { q: "ÉA" })).ids).toEqual([pid(1)]);
    } finally {
      await icu.close();
    }
  });
});

function withoutImages(record: ProductRecord) {
  const { images: _i, checkout_fields: _c, deleted_at: _d, ...rest } = record;
  return rest;
}

/** The plan of the one query `run` makes, as the engine explains it (EXPLAIN QUERY PLAN, EXPLAIN). */
async function explain(database: Database, run: (db: Database["db"]) => Promise<unknown>): Promise<string[]> {
  let node: RootOperationNode | undefined;
  let queryId: Parameters<ReturnType<Database["db"]["getExecutor"]>["compileQuery"]>[1] | undefined;
  const capture: KyselyPlugin = {
    transformQuery(args) {
      if (node) throw new Error("the page ran more than one query");
      node = args.node;
      queryId = args.queryId;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await run(database.db.withPlugin(capture));
  const compiled = database.db.getExecutor().compileQuery(node!, queryId!);
  const prefix = database.dialect === "sqlite" ? "explain query plan " : "explain ";
  const { rows } = await database.db.executeQuery<Record<string, string>>(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
  return rows.map((row) => (database.dialect === "sqlite" ? String(row.detail) : String(row["QUERY PLAN"])));
}
