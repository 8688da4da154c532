import type { z } from "zod";
import { toTimestamp } from "../deps.js";
import { notFound, validationError, type ValidationIssue } from "../errors.js";
import { isUuid } from "../ids.js";
import { listQuerySchema } from "../lists/list-query.js";
import { paginate, withinBounds } from "../lists/paginate.js";
import { isoDateOrDateTime } from "../lists/list-query.js";
import type { MediaStore } from "../media/media-store.js";
import type { LockLease } from "../ports/lock.js";
import { mediaTypeFromUrl } from "../media/sniff.js";
import type { ServiceDeps } from "../service-deps.js";
import { createTextMemo } from "../storage/text-memo.js";
import { stageEvent } from "../events/event-sink.js";
import { checkUploads, type CheckedUpload, type ImageUpload } from "./product-input.js";
import { createProductStore, productKeys } from "./product-store.js";
import { createProductRoom } from "./product-room.js";
import type { AccountRecord } from "../accounts/schemas.js";
import { matchesText, sortImages, toProductSummary, toProductView, type ProductImageRecord, type ProductRecord } from "./product-view.js";
import { MAX_IMAGES, productListQuerySchema, type ProductCreateInput, type ProductUpdateInput } from "./schemas.js";
import { skipUnreadable } from "../storage/record-check.js";
import { parseStoredRecord } from "../storage/guarded-stores.js";
import type { ProductFilter, ProductTables } from "../storage/sqlite-products.js";
import type { ChangeMark } from "../db/change-mark.js";

interface Deps extends ServiceDeps {
  media: MediaStore;
  /** The account's quotas (`product_quota`, `media_quota_bytes`); defaults when the account is unknown. */
  accounts: { get(accountId: string): Promise<Pick<AccountRecord, "product_quota" | "media_quota_bytes"> | null> };
  /** True when other processes write the same store (its change feed): quota shares are then taken under the shared lock. */
  shared: boolean;
  /** On SQLite: lists and quota totals from the database (`sqlite-products.ts`) instead of an index in memory. */
  tables?: ProductTables;
}

/** Bytes a set of checked uploads adds to the media store. */
const sizeOf = (uploads: CheckedUpload[]) => uploads.reduce((sum, upload) => sum + upload.bytes.byteLength, 0);

/** Query of `GET /products`. */
export const productListSchema = listQuerySchema(["created_at", "updated_at", "title", "price"]).extend({
  ...productListQuerySchema.shape,
  created_after: isoDateOrDateTime.optional(),
  created_before: isoDateOrDateTime.optional(),
});

/** A products query as `productListSchema` outputs it. */
export type ProductListQuery = z.output<typeof productListSchema>;

const DAY_MS = 86_400_000;
/** A bound moved a day outward, as the stored `created_at`'s text: every date-time with an offset inside it compares right. */
const widened = (bound: string | undefined, by: number) => (bound === undefined ? undefined : new Date(Date.parse(bound) + by).toISOString());

/**
 * What the database may rule out of a products list before its rows are read (SQLite; the list's own filter
 * then decides exactly): the type, the longest ASCII run of the search text (found in the database's
 * ASCII-folded text wherever the whole needle is in the lowercased one), the created bounds a day wider.
 */
function toProductFilter(q: ProductListQuery, needle: string | undefined): ProductFilter | undefined {
  if (!q.product_type && !needle && !q.created_after && !q.created_before) return undefined;
  const ascii = needle?.match(/[\0-\x7f]+/g)?.reduce((a, b) => (b.length > a.length ? b : a), "");
  return { type: q.product_type, text: ascii || undefined, createdFrom: widened(q.created_after, -DAY_MS), createdTo: widened(q.created_before, DAY_MS) };
}

/** Products of an account: create, read, list, update (with media), soft delete. */
export function createProductsService(deps: Deps) {
  const { clock, ids } = deps;
  const store = createProductStore(deps);
  const key = productKeys.product;
  const room = createProductRoom({ lock: deps.lock, accounts: deps.accounts, usage: store.usage, shared: deps.shared });
  const view = (p: ProductRecord) => toProductView(p, deps.publicUrl());
  // GET's answer, serialised, per product while its stored text stays the same (the view is a function of
  // that text and the public URL): a GET then reads the record's text and parses nothing.
  let viewsUrl = "";
  const views = createTextMemo((text: string, memoKey: string): string | null => {
    const record = parseStoredRecord<ProductRecord>(deps.storage, memoKey, text);
    return record.deleted_at ? null : JSON.stringify(toProductView(record, viewsUrl));
  });

  async function read(accountId: string, id: string): Promise<ProductRecord | null> {
    if (!isUuid(id)) return null;
    const record = await store.read(accountId, id);
    return record && !record.deleted_at ? record : null;
  }

  async function requireProduct(accountId: string, id: string): Promise<ProductRecord> {
    const record = await read(accountId, id);
    if (!record) throw notFound("product", id);
    return record;
  }

  /** The one place a product changes: the record and its event's outbox entry in one batch, the index, then the event handed on. */
  async function commit(record: ProductRecord, type: "product.created" | "product.updated" | "product.deleted", lease?: LockLease) {
    const event = await stageEvent(deps.events, { type, account_id: record.account_id, data: view(record) });
    await store.write(record, lease?.fence, event.ops);
    event.publish();
  }

  async function storeUploads(record: ProductRecord, uploads: CheckedUpload[], startOrder: number, at: string) {
    const added: ProductImageRecord[] = [];
    for (const [i, upload] of uploads.entries()) {
      const id = ids.uuid();
      const path = `products/${record.id}/${id}.${upload.ext}`;
      await deps.media.put(path, upload.bytes);
      added.push({ id, url: deps.media.urlOf(path), media_type: upload.mediaType, display_order: startOrder + i, created_at: at, media_path: path, bytes: upload.bytes.byteLength });
    }
    return added;
  }

  /** The edit of {@link update}, under the product's lock (and the quota lock when it adds uploads). */
  async function editProduct(current: ProductRecord, body: ProductUpdateInput, removed: Set<string>, uploads: CheckedUpload[], lease: LockLease, quotaLease?: LockLease) {
    const at = toTimestamp(clock.now());
    const issues: ValidationIssue[] = [];
    const own = new Set(current.images.map((i) => i.id));
    for (const [i, rid] of [...removed].entries()) if (!own.has(rid)) issues.push({ path: `remove_image_ids.${i}`, code: "unknown_image", message: "is not an image of this product" });
    for (const [i, item] of (body.reorder_images ?? []).entries()) {
      if (!own.has(item.id)) issues.push({ path: `reorder_images.${i}.id`, code: "unknown_image", message: "is not an image of this product" });
      else if (removed.has(item.id)) issues.push({ path: `reorder_images.${i}.id`, code: "conflict", message: "is also being removed" });
    }
    if (issues.length) throw validationError(issues);
    const order = new Map((body.reorder_images ?? []).map((r) => [r.id, r.display_order]));
    let images = current.images.filter((img) => !removed.has(img.id)).map((img) => ({ ...img, display_order: order.get(img.id) ?? img.display_order }));
    const next = images.reduce((max, img) => Math.max(max, img.display_order + 1), 0);
    const fromUrls = urlImages(body.images, next, at);
    if (images.length + fromUrls.length + uploads.length > MAX_IMAGES) throw tooManyImages();
    const record: ProductRecord = { ...current, images };
    images = [...images, ...fromUrls, ...(await storeUploads(record, uploads, next + fromUrls.length, at))];
    // Renumber so display_order is always 0..n-1 in the order shown.
    record.images = sortImages(images).map((img, i) => ({ ...img, display_order: i }));
    for (const field of ["title", "description", "price", "original_price", "delivery_price", "product_type"] as const) {
      if (body[field] !== undefined) (record as unknown as Record<string, unknown>)[field] = body[field];
    }
    record.updated_at = at;
    // On a shared store the share is taken by this write: only while the quota lock is still ours.
    await quotaLease?.assertHeld();
    await commit(record, "product.updated", lease);
    return view(record);
  }

  const urlImages = (urls: string[] | undefined, startOrder: number, at: string): ProductImageRecord[] =>
    (urls ?? []).map((url, i) => ({ id: ids.uuid(), url, media_type: mediaTypeFromUrl(url), display_order: startOrder + i, created_at: at, media_path: null }));

  return {
    read,
    require: requireProduct,
    /** A product even when soft-deleted (placeholders of pages built from it keep working). */
    async readAny(accountId: string, id: string): Promise<ProductRecord | null> {
      return isUuid(id) ? store.read(accountId, id) : null;
    },
    view,

    /** Creates a product from a checked body (`productCreateSchema`'s output) and image files. */
    async create(accountId: string, body: ProductCreateInput, files: ImageUpload[] = [], _change?: ChangeMark) {
      const uploads = checkUploads(files);
      const urlCount = body.images?.length ?? 0;
      if (urlCount + uploads.length > MAX_IMAGES) throw tooManyImages();
      const id = ids.uuid();
      return room.take(accountId, { id, products: 1, bytes: () => sizeOf(uploads) }, async (quotaLease) => {
        const at = toTimestamp(clock.now());
        const record: ProductRecord = {
          id,
          account_id: accountId,
          title: body.title,
          description: body.description ?? null,
          price: body.price,
          original_price: body.original_price ?? null,
          delivery_price: body.delivery_price ?? null,
          product_type: body.product_type,
          images: [],
          checkout_fields: null,
          created_at: at,
          updated_at: at,
          deleted_at: null,
        };
        record.images = [...urlImages(body.images, 0, at), ...(await storeUploads(record, uploads, urlCount, at))];
        // On a shared store the quota lease fences the write: refused once the lease has ended.
        await commit(record, "product.created", quotaLease);
        return view(record);
      });
    },

    async get(accountId: string, id: string) {
      return view(await requireProduct(accountId, id));
    },

    /** {@link get}'s answer as JSON text, the same bytes `JSON.stringify` of it gives. */
    async getJson(accountId: string, id: string): Promise<string> {
      const text = isUuid(id) ? await store.readText(accountId, id) : null;
      if (text === null) throw notFound("product", id);
      const url = deps.publicUrl();
      if (url !== viewsUrl) {
        views.clear();
        viewsUrl = url;
      }
      const json = views.get(key(accountId, id), text);
      if (json === null) throw notFound("product", id);
      return json;
    },

    async list(accountId: string, q: ProductListQuery) {
      const needle = q.q?.toLowerCase();
      return paginate({
        index: await store.listing(accountId, toProductFilter(q, needle)),
        codec: deps.cursors,
        sort: q.sort,
        cursor: q.cursor,
        perPage: q.per_page,
        filters: { product_type: q.product_type, q: q.q, created_after: q.created_after, created_before: q.created_before },
        filter: (e) =>
          (!q.product_type || e.product_type === q.product_type) &&
          (!needle || matchesText(e, needle)) &&
          withinBounds(e.created_at, q.created_after, q.created_before),
        load: async (entries) => {
          const records = await Promise.all(entries.map((e) => store.recordOf(e) ?? skipUnreadable(store.read(accountId, e.id))));
          return records.filter((r): r is ProductRecord => r !== null).map((r) => toProductSummary(r, deps.publicUrl()));
        },
      });
    },

    /** Applies a checked patch (`productUpdateSchema`'s output) and appends image files. */
    async update(accountId: string, id: string, body: ProductUpdateInput, files: ImageUpload[] = [], _change?: ChangeMark) {
      const uploads = checkUploads(files);
      if (!isUuid(id)) throw notFound("product", id);
      // Serialised per product so concurrent edits of the image list never lose one.
      return deps.lock.withLock(key(accountId, id), async (lease) => {
        const current = await requireProduct(accountId, id);
        const removed = new Set(body.remove_image_ids ?? []);
        const edit = (quotaLease?: LockLease) => editProduct(current, body, removed, uploads, lease, quotaLease);
        if (uploads.length === 0) return edit();
        // New bytes take media quota: what the removed images free is counted first.
        const freed = current.images.reduce((sum, image) => sum + (removed.has(image.id) ? (image.bytes ?? 0) : 0), 0);
        return room.take(accountId, { id, products: 0, bytes: () => sizeOf(uploads) - freed }, edit);
      });
    },

    async remove(accountId: string, id: string, _change?: ChangeMark): Promise<void> {
      if (!isUuid(id)) throw notFound("product", id);
      await deps.lock.withLock(key(accountId, id), async (lease) => {
        const current = await requireProduct(accountId, id);
        const at = toTimestamp(clock.now());
        await commit({ ...current, deleted_at: at, updated_at: at }, "product.deleted", lease);
      });
    },

    /** Saves the checkout fields that belong to a product (used by page generation). */
    async setCheckoutFields(accountId: string, id: string, fields: ProductRecord["checkout_fields"]) {
      await deps.lock.withLock(key(accountId, id), async () => {
        const current = await store.read(accountId, id);
        if (current) await store.write({ ...current, checkout_fields: fields });
      });
    },
  };
}

function tooManyImages() {
  return validationError([{ path: "images", code: "too_many", message: `a product has at most ${MAX_IMAGES} images` }]);
}

export type ProductsService = ReturnType<typeof createProductsService>;
