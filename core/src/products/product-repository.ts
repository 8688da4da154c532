import { sql, type RawBuilder } from "kysely";
import type { AccountRecord } from "../accounts/schemas.js";
import { toJson } from "../db/column-types.js";
import type { Dialect, Queries, Tx } from "../db/database.js";
import { preparedInsert, preparedQuery } from "../db/prepared-query.js";
import type { Tables } from "../db/tables.js";
import { columnProblem, createRowReader, readJsonColumn, type ColumnRule, type JsonShape, type UnreadableRows } from "../db/unreadable-rows.js";
import { LpError } from "../errors.js";
import type { CursorCodec } from "../lists/cursor.js";
import { selectKeysetPage, toPagination } from "../lists/keyset-page.js";
import { toSort, type Page } from "../lists/list-query.js";
import type { ProductImageRecord, ProductRecord, StoredCheckoutField } from "./product-view.js";
import type { ProductListQuery } from "./products-service.js";
import { productTypeSchema } from "./schemas.js";

type ProductRow = Tables["products"];
type ImageRow = Tables["product_images"];

/** A product as a list shows it: its row without images, and the URL of its first image. */
export interface ProductListItem extends Omit<ProductRecord, "images" | "checkout_fields" | "deleted_at"> {
  /** The first image's URL in display order; null for a product without images (its placeholder is shown). */
  first_image_url: string | null;
}

/** What an account's live products take of its quotas. */
interface ProductUsageTotals {
  /** Products not deleted. */
  products: number;
  /** Bytes of the uploaded images of the products not deleted. */
  bytes: number;
}

/**
 * The text `q` is searched in: the title, a line break and the description, lowercased by JavaScript (the
 * needle is too), so a list's search is a plain substring test on both engines, with no wildcard in it.
 */
export const toSearchText = (title: string, description: string | null): string => `${title}\n${description ?? ""}`.toLowerCase();

/** Bytes of a product's uploaded images. */
const uploadBytes = (images: readonly ProductImageRecord[]) => images.reduce((sum, image) => sum + (image.bytes ?? 0), 0);

/** The sort keys of `GET /products`, as the indexes of migration 0002 hold them (the title without ASCII case). */
const SORT_KEYS: Record<string, RawBuilder<string | number>> = {
  created_at: sql`created_at`,
  updated_at: sql`updated_at`,
  title: sql`lower(title)`,
  price: sql`price`,
};

// Inside these the ISO text of a time has four year digits and compares in time order.
const FIRST_TIME = Date.parse("0000-01-01T00:00:00.000Z");
const LAST_TIME = Date.parse("9999-12-31T23:59:59.999Z");

/**
 * An exclusive `created_at` bound (a date or a date-time with an offset) as the stored text it compares with,
 * deciding as `withinBounds` does (by the instant); undefined when every stored time is on the kept side.
 */
function toCreatedBound(bound: string | undefined, side: "after" | "before"): string | undefined {
  if (bound === undefined) return undefined;
  const at = Date.parse(bound);
  if (side === "after" ? at < FIRST_TIME : at > LAST_TIME) return undefined;
  return new Date(Math.min(Math.max(at, FIRST_TIME), LAST_TIME)).toISOString();
}

const productColumns = [
  "id",
  "account_id",
  "title",
  "description",
  "price",
  "original_price",
  "delivery_price",
  "product_type",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof ProductRow)[];

const insertProduct = preparedInsert("products", [...productColumns, "checkout_fields", "search_text", "media_bytes", "deleted_at"]);

/** An account's quotas and its products' totals, in one statement (SQLite, where one transaction runs at a time). */
const quotasWithTotals = preparedQuery((q: Queries, accountId: string) =>
  q
    .selectFrom("accounts as a")
    .leftJoin("product_totals as t", "t.account_id", "a.account_id")
    .select(["a.product_quota", "a.media_quota_bytes", "t.products", "t.media_bytes"])
    .where("a.account_id", "=", accountId),
);

/** A product's row with its images' rows (one row with null image columns when it has none), in display order. */
const productWithImages = preparedQuery((q: Queries, id: string, accountId: string) =>
  q
    .selectFrom("products as p")
    .leftJoin("product_images as i", "i.product_id", "p.id")
    .select(productColumns.map((column) => `p.${column}` as const))
    .select(["p.checkout_fields", "p.deleted_at"])
    .select(["i.id as image_id", "i.url", "i.media_type", "i.display_order", "i.media_path", "i.bytes", "i.created_at as image_created_at"])
    .where("p.id", "=", id)
    .where("p.account_id", "=", accountId)
    .orderBy("i.display_order")
    .orderBy("i.created_at")
    .orderBy("i.id"),
);

/** The row of a product record (its images apart): what a bulk load writes (the benchmarks' seeds). */
export function toProductRow(record: ProductRecord): ProductRow {
  return {
    id: record.id,
    account_id: record.account_id,
    title: record.title,
    description: record.description,
    price: record.price,
    original_price: record.original_price,
    delivery_price: record.delivery_price,
    product_type: record.product_type,
    checkout_fields: record.checkout_fields === null ? null : toJson(record.checkout_fields),
    search_text: toSearchText(record.title, record.description),
    media_bytes: uploadBytes(record.images),
    created_at: record.created_at,
    updated_at: record.updated_at,
    deleted_at: record.deleted_at,
  };
}

const toImageRow = (productId: string, image: ProductImageRecord): ImageRow => ({
  id: image.id,
  product_id: productId,
  url: image.url,
  media_type: image.media_type,
  display_order: image.display_order,
  media_path: image.media_path,
  bytes: image.bytes ?? null,
  created_at: image.created_at,
});

/** What a product's own columns must hold (SQLite keeps whatever a hand edit puts there). */
const COLUMN_RULES: Record<string, ColumnRule> = {
  title: "text",
  description: "text?",
  price: "number",
  original_price: "number?",
  delivery_price: "number?",
  product_type: productTypeSchema.options,
  created_at: "text",
  updated_at: "text",
};
/** What a list item's columns must hold. */
const LISTED_RULES: Record<string, ColumnRule> = { ...COLUMN_RULES, first_image_url: "text?" };
/** What a product's row must hold to be read whole. */
const PRODUCT_RULES: Record<string, ColumnRule> = { ...COLUMN_RULES, deleted_at: "text?" };
/** What each of its images' rows must hold, as the read joins them. */
const IMAGE_RULES: Record<string, ColumnRule> = { url: "text", media_type: "text", display_order: "integer", media_path: "text?", bytes: "integer?", image_created_at: "text" };
/** What an account's quotas must hold, as a write reads them. */
const QUOTA_RULES: Record<string, ColumnRule> = { product_quota: "integer", media_quota_bytes: "integer" };
const CHECKOUT_FIELDS: JsonShape = { what: "a list", is: Array.isArray, nullable: true };

/** An image as records hold it: `bytes` only on uploads. */
function toImageRecord(row: Omit<ImageRow, "product_id">): ProductImageRecord {
  const image: ProductImageRecord = { id: row.id, url: row.url, media_type: row.media_type, display_order: row.display_order, created_at: row.created_at, media_path: row.media_path };
  if (row.bytes !== null) image.bytes = row.bytes;
  return image;
}

/**
 * Products and their images in the tables of migration 0002: one row per product, one per image. Every
 * method takes the queries to run on (the database, or a transaction); those that write several rows take a
 * transaction. List cursors are `cursors`' opaque signed text, bound to the sort and filters, as every list's.
 */
export function createProductRepository(deps: { dialect: Dialect; cursors: CursorCodec; /** Names each damaged row met once in the log. */ unreadable?: UnreadableRows }) {
  const pg = deps.dialect === "postgres";
  /** The error of a product whose rows cannot be read, named in the log once. */
  const unreadable = createRowReader("product", "products", deps.unreadable).fail;
  const accounts = createRowReader("account", "accounts", deps.unreadable);
  const contains = (needle: string) => (pg ? sql<boolean>`strpos(search_text, ${needle}) > 0` : sql<boolean>`instr(search_text, ${needle}) > 0`);

  async function insertImages(tx: Tx, productId: string, images: readonly ProductImageRecord[]) {
    if (images.length > 0) await tx.insertInto("product_images").values(images.map((image) => toImageRow(productId, image))).execute();
  }

  /**
   * The account's quotas and what its products take of them (`product_totals`, kept by triggers on `products`);
   * null for an unknown account. With `lock` the account's row is held until the transaction ends (PostgreSQL;
   * SQLite runs one transaction at a time): every write that takes quota locks it first, so concurrent ones
   * into one account count one after the other. The totals are read by a statement of their own, after the
   * lock: under READ COMMITTED a statement that waited for a lock sees the locked row as committed since, but
   * a row it joined as it was when the statement began (concurrent creates would all pass the quota).
   */
  async function quotasOf(q: Queries, accountId: string, lock: boolean) {
    if (!pg) {
      // SQLite runs one transaction at a time: the account and its totals are read by one statement.
      const [row] = await quotasWithTotals(q, accountId);
      if (!row) return null;
      accounts.check(accountId, row, QUOTA_RULES);
      const bytes = Number(row.media_bytes ?? 0);
      return { account: row, used: { products: Number(row.products ?? 0), bytes: () => bytes } };
    }
    let query = q.selectFrom("accounts").select(["product_quota", "media_quota_bytes"]).where("account_id", "=", accountId);
    // NO KEY: rows that only reference the account (its pages, tokens) are not held up by the lock.
    if (lock) query = query.forNoKeyUpdate();
    const account = await query.executeTakeFirst();
    if (!account) return null;
    accounts.check(accountId, account, QUOTA_RULES);
    const totals = await usage(q, accountId);
    return { account, used: { products: totals.products, bytes: () => totals.bytes } };
  }

  async function usage(q: Queries, accountId: string): Promise<ProductUsageTotals> {
    const row = await q.selectFrom("product_totals").select(["products", "media_bytes"]).where("account_id", "=", accountId).executeTakeFirst();
    return { products: Number(row?.products ?? 0), bytes: Number(row?.media_bytes ?? 0) };
  }

  async function insert(tx: Tx, record: ProductRecord): Promise<void> {
    await insertProduct(tx, toProductRow(record));
    await insertImages(tx, record.id, record.images);
  }

  return {
    /** Stores a new product and its images, with no quota asked (an import); an unknown account is the foreign key's refusal. */
    insert,

    /**
     * Stores a new product once it fits the account's quotas (one more product; its uploads' bytes), counted in
     * `tx` under the account's lock: concurrent creates into one account never pass its quota together. Throws
     * 403 `quota_exceeded` (nothing written); an unknown account is the foreign key's refusal.
     */
    async createWithinQuota(tx: Tx, record: ProductRecord): Promise<void> {
      const quotas = await quotasOf(tx, record.account_id, true);
      const refusal = quotas && productRoomRefusal(quotas.account, quotas.used, 1, uploadBytes(record.images));
      if (refusal) throw refusal;
      await insert(tx, record);
    },

    /**
     * The product with its images in display order (ties by creation, then id), deleted or not; null when the
     * account has no such product. With `lock` (in a transaction), its row is held until the transaction ends
     * (PostgreSQL), so concurrent edits of one product run one after the other.
     */
    async read(q: Queries, accountId: string, id: string, options: { lock?: boolean } = {}): Promise<ProductRecord | null> {
      // The row lock is taken by a statement of its own, before the product and its images are read: under
      // READ COMMITTED, a statement that waited for the lock sees the locked row as committed since, but the
      // rows it joined as they were when it began (a concurrent edit's images would be lost).
      if (options.lock && pg) {
        const held = await q.selectFrom("products").select("id").where("id", "=", id).where("account_id", "=", accountId).forUpdate().executeTakeFirst();
        if (!held) return null;
      }
      const rows = await productWithImages(q, id, accountId);
      const first = rows[0];
      if (!first) return null;
      // A row edited by hand or torn reads as a clear refusal naming the product, never as a crash further on.
      const problem = columnProblem(first, PRODUCT_RULES) ?? rows.map((row) => (row.image_id === null ? null : columnProblem(row, IMAGE_RULES))).find((p) => p !== null);
      if (problem) throw unreadable(id, problem);
      const checkoutFields = readJsonColumn<StoredCheckoutField[]>("checkout_fields", first.checkout_fields, CHECKOUT_FIELDS);
      if ("problem" in checkoutFields) throw unreadable(id, checkoutFields.problem);
      const images = rows.flatMap((row) =>
        row.image_id === null
          ? []
          : [toImageRecord({ id: row.image_id, url: row.url!, media_type: row.media_type!, display_order: row.display_order!, media_path: row.media_path, bytes: row.bytes, created_at: row.image_created_at! })],
      );
      return {
        id: first.id,
        account_id: first.account_id,
        title: first.title,
        description: first.description,
        price: first.price,
        original_price: first.original_price,
        delivery_price: first.delivery_price,
        product_type: first.product_type as ProductRecord["product_type"],
        images,
        checkout_fields: checkoutFields.value,
        created_at: first.created_at,
        updated_at: first.updated_at,
        deleted_at: first.deleted_at,
      };
    },

    /**
     * Writes an edited product not deleted: its fields and `updated_at` from `record`, and its images replaced by
     * `record.images` (removed, reordered, added). When its uploads grow, the growth must fit the account's media
     * quota, counted in `tx` under the account's lock (403 `quota_exceeded`, nothing written). False when the
     * account has no such product, or it is deleted. `checkout_fields`, `created_at` and `deleted_at` are kept.
     */
    async update(tx: Tx, record: ProductRecord): Promise<boolean> {
      let current = tx.selectFrom("products").select("media_bytes").where("id", "=", record.id).where("account_id", "=", record.account_id).where("deleted_at", "is", null);
      if (pg) current = current.forUpdate();
      const before = await current.executeTakeFirst();
      if (!before) return false;
      const row = toProductRow(record);
      const growth = row.media_bytes - before.media_bytes;
      if (growth > 0) {
        const quotas = await quotasOf(tx, record.account_id, true);
        const refusal = quotas && productRoomRefusal(quotas.account, quotas.used, 0, growth);
        if (refusal) throw refusal;
      }
      const { title, description, price, original_price, delivery_price, product_type, search_text, media_bytes, updated_at } = row;
      await tx
        .updateTable("products")
        .set({ title, description, price, original_price, delivery_price, product_type, search_text, media_bytes, updated_at })
        .where("id", "=", record.id)
        .execute();
      await tx.deleteFrom("product_images").where("product_id", "=", record.id).execute();
      await insertImages(tx, record.id, record.images);
      return true;
    },

    /** Marks a product deleted at `at` (also its `updated_at`); false when there is none, or it already is. */
    async softDelete(q: Queries, accountId: string, id: string, at: string): Promise<boolean> {
      const result = await q
        .updateTable("products")
        .set({ deleted_at: at, updated_at: at })
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Saves the checkout fields page generation settled on for a product, deleted or not (`updated_at` kept); false when there is none. */
    async setCheckoutFields(q: Queries, accountId: string, id: string, fields: StoredCheckoutField[] | null): Promise<boolean> {
      const result = await q
        .updateTable("products")
        .set({ checkout_fields: fields === null ? null : toJson(fields) })
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** What the account's products not deleted take of its quotas, as `q` sees them. */
    usage,

    /**
     * The 403 `quota_exceeded` a write adding `products` products and `bytes` bytes of uploads would get, as
     * `q` sees the account now (no lock: the write's own transaction decides); null when it fits, or the
     * account is unknown. Lets a write refuse before it stores any upload.
     */
    async quotaRefusal(q: Queries, accountId: string, claim: { products: number; bytes: number }): Promise<LpError | null> {
      const quotas = await quotasOf(q, accountId, false);
      return quotas && productRoomRefusal(quotas.account, quotas.used, claim.products, claim.bytes);
    },

    /**
     * One page of `GET /products`: one query, which walks the index of the sort from the cursor's position
     * (keyset on the sort key and the id, either direction) with every filter applied in it. `q` is a
     * substring of the title, a line break and the description, both lowercased as JavaScript does; the
     * created bounds are exclusive. The cursor is bound to the sort and the filters as given.
     */
    async list(q: Queries, accountId: string, query: ProductListQuery): Promise<Page<ProductListItem>> {
      const { field, descending } = toSort(query.sort);
      const key = SORT_KEYS[field];
      if (!key) throw new Error(`products do not sort by ${field}`);
      const binding = {
        sort: query.sort,
        filters: { product_type: query.product_type, q: query.q, created_after: query.created_after, created_before: query.created_before },
      };
      const after = query.cursor ? deps.cursors.decode(query.cursor, binding) : undefined;
      if (after && typeof after.value !== (field === "price" ? "number" : "string")) {
        throw new LpError("invalid_cursor", "The cursor is not valid for this listing: malformed. Start again without a cursor.");
      }
      const needle = query.q ? query.q.toLowerCase() : undefined;
      // PostgreSQL text holds no NUL character, so no stored text has one (and the needle could not be sent).
      if (pg && needle?.includes("\0")) return { data: [], pagination: { next_cursor: null, has_more: false } };
      const createdAfter = toCreatedBound(query.created_after, "after");
      const createdBefore = toCreatedBound(query.created_before, "before");
      const listed = q
        .selectFrom("products")
        .select(productColumns)
        .select([
          key.as("sort_value"),
          sql<string | null>`(select url from product_images where product_id = products.id order by display_order, created_at, id limit 1)`.as("first_image_url"),
        ])
        .where("account_id", "=", accountId)
        .where("deleted_at", "is", null)
        .$if(query.product_type !== undefined, (b) => b.where("product_type", "=", query.product_type!))
        .$if(needle !== undefined, (b) => b.where(contains(needle!)))
        .$if(createdAfter !== undefined, (b) => b.where("created_at", ">", createdAfter!))
        .$if(createdBefore !== undefined, (b) => b.where("created_at", "<", createdBefore!));
      const page = await selectKeysetPage(
        listed,
        {
          key,
          tiebreak: "id",
          descending,
          // The page goes on from its last row whose sort key is of the sort's type: a damaged one is left out.
          position: (row) => (typeof row.sort_value === (field === "price" ? "number" : "string") ? { value: row.sort_value, id: row.id } : undefined),
        },
        { after, limit: query.per_page },
      );
      return {
        data: page.items.flatMap(({ sort_value: _, ...item }) => {
          const problem = columnProblem(item, LISTED_RULES);
          if (problem) return (unreadable(item.id, problem), []);
          return [{ ...item, product_type: item.product_type as ProductListItem["product_type"] }];
        }),
        pagination: toPagination(page, deps.cursors, binding),
      };
    },
  };
}

/** The products repository of one database. */
export type ProductRepository = ReturnType<typeof createProductRepository>;

/** Which per-account quota a refusal names in `details.quota`. */
type ProductQuotaName = "products" | "media_bytes";

/** A 403 `quota_exceeded` naming the quota, its limit and what is used. */
function quotaExceeded(quota: ProductQuotaName, limit: number, used: number, requested: number): LpError {
  const message =
    quota === "products"
      ? `The account's product quota of ${limit} is reached; delete a product first.`
      : `The account's media quota of ${limit} bytes would be passed (${used} used, ${requested} more asked); delete products or images first.`;
  return new LpError("quota_exceeded", message, { quota, limit, used, ...(quota === "media_bytes" ? { requested } : {}) });
}

/** What an account's products take of its quotas, as one read saw them. */
interface ProductUsage {
  /** Live products. */
  products: number;
  /** Bytes of the live products' uploaded images (worked out when asked). */
  bytes(): number;
}

/**
 * The {@link quotaExceeded} refusal when `products` more products or `bytes` more bytes of uploads would pass
 * the account's quotas, counting the products and bytes `usage` saw; null when they fit.
 */
function productRoomRefusal(
  account: Pick<AccountRecord, "product_quota" | "media_quota_bytes">,
  usage: ProductUsage,
  products: number,
  bytes: number,
): LpError | null {
  if (products > 0 && usage.products + products > account.product_quota) return quotaExceeded("products", account.product_quota, usage.products, products);
  if (bytes > 0) {
    const used = usage.bytes();
    if (used + bytes > account.media_quota_bytes) return quotaExceeded("media_bytes", account.media_quota_bytes, used, bytes);
  }
  return null;
}
