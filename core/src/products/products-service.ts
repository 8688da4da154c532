import type { ProductSummary } from "@lp/contract";
import type { z } from "zod";
import type { ChangeMark } from "../db/change-mark.js";
import type { Tx } from "../db/database.js";
import { toTimestamp } from "../deps.js";
import { LpError, notFound, validationError, type ValidationIssue } from "../errors.js";
import { recordEvent, type DomainEvent } from "../events/event-sink.js";
import { isUuid } from "../ids.js";
import { isoDateOrDateTime, listQuerySchema, type Page } from "../lists/list-query.js";
import type { MediaStore } from "../media/media-store.js";
import { IMAGE_TYPES, mediaTypeFromUrl, sniffImageType, type ImageMediaType } from "../media/sniff.js";
import type { ServiceDeps } from "../service-deps.js";
import { createProductRepository, type ProductListItem } from "./product-repository.js";
import { placeholderUrl, sortImages, toProductView, type ProductImageRecord, type ProductRecord } from "./product-view.js";
import { MAX_IMAGE_BYTES, MAX_IMAGES, productListQuerySchema, type ProductCreateInput, type ProductUpdateInput } from "./schemas.js";

interface Deps extends ServiceDeps {
  media: MediaStore;
}

/** Query of `GET /products`. */
export const productListSchema = listQuerySchema(["created_at", "updated_at", "title", "price"]).extend({
  ...productListQuerySchema.shape,
  created_after: isoDateOrDateTime.optional(),
  created_before: isoDateOrDateTime.optional(),
});

/** A products query as `productListSchema` outputs it. */
export type ProductListQuery = z.output<typeof productListSchema>;

/** An upload whose bytes are in the media store, waiting for the row that names it (its place in the list is set there). */
type StoredUpload = Omit<ProductImageRecord, "display_order">;

/** Bytes of stored uploads. */
const sizeOf = (uploads: readonly CheckedUpload[]) => uploads.reduce((sum, upload) => sum + upload.bytes.byteLength, 0);

/** A list item as `GET /products` answers it: the fields in the order of `toProductSummary`, the placeholder for a product without images. */
function toListedSummary(item: ProductListItem, publicUrl: string): ProductSummary {
  return {
    id: item.id,
    title: item.title,
    description: item.description,
    price: item.price,
    original_price: item.original_price,
    delivery_price: item.delivery_price,
    preview_image_url: item.first_image_url ?? placeholderUrl(publicUrl, item),
    product_type: item.product_type,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

/**
 * Products of an account over the products repository: create, read, list, update (with media), soft delete.
 * Every change is one transaction with its event (and the request's change mark). Uploaded bytes are written
 * to the media store before the transaction that names them, under paths no other product shares, and
 * removed again when that transaction does not commit: a row never names bytes that are not stored.
 */
export function createProductsService(deps: Deps) {
  const { clock, ids, database } = deps;
  const repo = createProductRepository({ dialect: database.dialect, cursors: deps.cursors, unreadable: deps.unreadableRows });
  const view = (p: ProductRecord) => toProductView(p, deps.publicUrl());
  const event = (type: "product.created" | "product.updated" | "product.deleted", record: ProductRecord): DomainEvent => ({ type, account_id: record.account_id, data: view(record) });
  const recordIn = (tx: Tx, e: DomainEvent) => recordEvent(deps.events, tx, e);

  async function read(accountId: string, id: string): Promise<ProductRecord | null> {
    if (!isUuid(id)) return null;
    const found = await repo.read(database.db, accountId, id);
    return found && !found.deleted_at ? found : null;
  }

  async function requireProduct(accountId: string, id: string): Promise<ProductRecord> {
    const found = await read(accountId, id);
    if (!found) throw notFound("product", id);
    return found;
  }

  /** Writes each checked upload's bytes under a fresh path of the product; what is written is removed again if a later one fails. */
  async function storeUploads(productId: string, checked: readonly CheckedUpload[], at: string): Promise<StoredUpload[]> {
    const stored: StoredUpload[] = [];
    try {
      for (const upload of checked) {
        const id = ids.uuid();
        const path = `products/${productId}/${id}.${upload.ext}`;
        await deps.media.put(path, upload.bytes);
        stored.push({ id, url: deps.media.urlOf(path), media_type: upload.mediaType, created_at: at, media_path: path, bytes: upload.bytes.byteLength });
      }
    } catch (error) {
      await discard(stored);
      throw error;
    }
    return stored;
  }

  /** Removes the bytes of uploads no row names (their write was refused); a failure here leaves only unnamed files. */
  async function discard(uploads: readonly StoredUpload[]) {
    await Promise.all(uploads.map((upload) => deps.media.remove(upload.media_path!).catch(() => {})));
  }

  /** Runs `write` (which names `uploads`), discarding the uploads' bytes when it throws. */
  async function naming<T>(uploads: readonly StoredUpload[], write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      await discard(uploads);
      throw error;
    }
  }

  /** Throws the 403 a write of `claim` would get now, before any byte is stored (its transaction decides again). */
  async function precheckQuota(accountId: string, claim: { products: number; bytes: number }) {
    const refusal = await repo.quotaRefusal(database.db, accountId, claim);
    if (refusal) throw refusal;
  }

  const urlImages = (urls: string[] | undefined, startOrder: number, at: string): ProductImageRecord[] =>
    (urls ?? []).map((url, i) => ({ id: ids.uuid(), url, media_type: mediaTypeFromUrl(url), display_order: startOrder + i, created_at: at, media_path: null }));

  /** Refuses an edit naming images the product does not have, or reordering one it removes. */
  function checkEdit(current: ProductRecord, body: ProductUpdateInput, removed: ReadonlySet<string>, added: number) {
    const issues: ValidationIssue[] = [];
    const own = new Set(current.images.map((i) => i.id));
    for (const [i, rid] of [...removed].entries()) if (!own.has(rid)) issues.push({ path: `remove_image_ids.${i}`, code: "unknown_image", message: "is not an image of this product" });
    for (const [i, item] of (body.reorder_images ?? []).entries()) {
      if (!own.has(item.id)) issues.push({ path: `reorder_images.${i}.id`, code: "unknown_image", message: "is not an image of this product" });
      else if (removed.has(item.id)) issues.push({ path: `reorder_images.${i}.id`, code: "conflict", message: "is also being removed" });
    }
    if (issues.length) throw validationError(issues);
    const kept = current.images.filter((img) => !removed.has(img.id)).length;
    if (kept + (body.images?.length ?? 0) + added > MAX_IMAGES) throw tooManyImages();
  }

  /** The product `body` makes of `current`: images removed, reordered, then those of URLs and the uploads appended. */
  function applyEdit(current: ProductRecord, body: ProductUpdateInput, removed: ReadonlySet<string>, uploads: readonly StoredUpload[], at: string): ProductRecord {
    const order = new Map((body.reorder_images ?? []).map((r) => [r.id, r.display_order]));
    const images = current.images.filter((img) => !removed.has(img.id)).map((img) => ({ ...img, display_order: order.get(img.id) ?? img.display_order }));
    const next = images.reduce((max, img) => Math.max(max, img.display_order + 1), 0);
    const fromUrls = urlImages(body.images, next, at);
    const appended = uploads.map((upload, i) => ({ ...upload, display_order: next + fromUrls.length + i }));
    const edited: ProductRecord = { ...current, updated_at: at };
    // Renumbered so display_order is always 0..n-1 in the order shown.
    edited.images = sortImages([...images, ...fromUrls, ...appended]).map((img, i) => ({ ...img, display_order: i }));
    for (const field of ["title", "description", "price", "original_price", "delivery_price", "product_type"] as const) {
      if (body[field] !== undefined) (edited as unknown as Record<string, unknown>)[field] = body[field];
    }
    return edited;
  }

  return {
    read,
    require: requireProduct,
    /** A product even when soft-deleted (placeholders of pages built from it keep working). */
    async readAny(accountId: string, id: string): Promise<ProductRecord | null> {
      return isUuid(id) ? repo.read(database.db, accountId, id) : null;
    },
    view,

    /** Creates a product from a checked body (`productCreateSchema`'s output) and image files, within the account's quotas. */
    async create(accountId: string, body: ProductCreateInput, files: ImageUpload[] = [], change?: ChangeMark) {
      const checked = checkUploads(files);
      const urlCount = body.images?.length ?? 0;
      if (urlCount + checked.length > MAX_IMAGES) throw tooManyImages();
      const id = ids.uuid();
      const at = toTimestamp(clock.now());
      const product: ProductRecord = {
        id,
        account_id: accountId,
        title: body.title,
        description: body.description ?? null,
        price: body.price,
        original_price: body.original_price ?? null,
        delivery_price: body.delivery_price ?? null,
        product_type: body.product_type,
        images: urlImages(body.images, 0, at),
        checkout_fields: null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      };
      if (checked.length > 0) await precheckQuota(accountId, { products: 1, bytes: sizeOf(checked) });
      const uploads = await storeUploads(id, checked, at);
      product.images.push(...uploads.map((upload, i) => ({ ...upload, display_order: urlCount + i })));
      return naming(uploads, () =>
        database.transaction(async (tx) => {
          await repo.createWithinQuota(tx, product);
          await change?.(tx);
          await recordIn(tx, event("product.created", product));
          return view(product);
        }),
      );
    },

    async get(accountId: string, id: string) {
      return view(await requireProduct(accountId, id));
    },

    /** {@link get}'s answer as JSON text, the same bytes `JSON.stringify` of it gives. */
    async getJson(accountId: string, id: string): Promise<string> {
      return JSON.stringify(view(await requireProduct(accountId, id)));
    },

    /** One page of `GET /products`: one query of the repository, the placeholder filled in for products without images. */
    async list(accountId: string, q: ProductListQuery): Promise<Page<ProductSummary>> {
      const page = await repo.list(database.db, accountId, q);
      const url = deps.publicUrl();
      return { data: page.data.map((item) => toListedSummary(item, url)), pagination: page.pagination };
    },

    /**
     * Applies a checked patch (`productUpdateSchema`'s output) and appends image files. With files, the product
     * and the media quota are checked before their bytes are stored; the transaction checks both again on the
     * product's row (locked on PostgreSQL), so concurrent edits of its image list never lose one.
     */
    async update(accountId: string, id: string, body: ProductUpdateInput, files: ImageUpload[] = [], change?: ChangeMark) {
      const checked = checkUploads(files);
      if (!isUuid(id)) throw notFound("product", id);
      const removed = new Set(body.remove_image_ids ?? []);
      const at = toTimestamp(clock.now());
      let uploads: StoredUpload[] = [];
      if (checked.length > 0) {
        const current = await requireProduct(accountId, id);
        // New bytes take media quota: what the removed images free is counted first.
        const freed = current.images.reduce((sum, image) => sum + (removed.has(image.id) ? (image.bytes ?? 0) : 0), 0);
        await precheckQuota(accountId, { products: 0, bytes: sizeOf(checked) - freed });
        checkEdit(current, body, removed, checked.length);
        uploads = await storeUploads(id, checked, at);
      }
      return naming(uploads, () =>
        database.transaction(async (tx) => {
          const current = await repo.read(tx, accountId, id, { lock: true });
          if (!current || current.deleted_at) throw notFound("product", id);
          checkEdit(current, body, removed, uploads.length);
          const edited = applyEdit(current, body, removed, uploads, at);
          if (!(await repo.update(tx, edited))) throw notFound("product", id);
          await change?.(tx);
          await recordIn(tx, event("product.updated", edited));
          return view(edited);
        }),
      );
    },

    /** Soft-deletes a product: pages built from it keep it (`readAny`); lists, reads and quotas no longer count it. */
    async remove(accountId: string, id: string, change?: ChangeMark): Promise<void> {
      if (!isUuid(id)) throw notFound("product", id);
      await database.transaction(async (tx) => {
        const current = await repo.read(tx, accountId, id, { lock: true });
        if (!current || current.deleted_at) throw notFound("product", id);
        const at = toTimestamp(clock.now());
        if (!(await repo.softDelete(tx, accountId, id, at))) throw notFound("product", id);
        await change?.(tx);
        await recordIn(tx, event("product.deleted", { ...current, deleted_at: at, updated_at: at }));
      });
    },

    /** Saves the checkout fields that belong to a product (used by page generation); nothing for an unknown product. */
    async setCheckoutFields(accountId: string, id: string, fields: ProductRecord["checkout_fields"]): Promise<void> {
      await repo.setCheckoutFields(database.db, accountId, id, fields);
    },
  };
}

function tooManyImages() {
  return validationError([{ path: "images", code: "too_many", message: `a product has at most ${MAX_IMAGES} images` }]);
}

/** The products service. */
export type ProductsService = ReturnType<typeof createProductsService>;

/** An image file given to a product (the server reads them from a multipart body). */
export interface ImageUpload {
  filename: string;
  bytes: Uint8Array;
}

/** An upload whose bytes were recognised as an image. */
interface CheckedUpload {
  bytes: Uint8Array;
  mediaType: ImageMediaType;
  ext: string;
}

/** Checks each upload by its bytes and size. */
function checkUploads(files: ImageUpload[]): CheckedUpload[] {
  return files.map((file, i) => {
    if (file.bytes.byteLength > MAX_IMAGE_BYTES) {
      throw new LpError("payload_too_large", `Image '${file.filename}' is larger than 10 MiB.`, { limit_bytes: MAX_IMAGE_BYTES, path: `images.${i}` });
    }
    const mediaType = sniffImageType(file.bytes);
    if (!mediaType) {
      throw new LpError("validation_error", `File '${file.filename}' is not a PNG, JPEG, GIF, WebP, AVIF or SVG image.`, {
        issues: [{ path: `images.${i}`, code: "invalid_image", message: "is not a supported image (checked by its content)" }],
      });
    }
    return { bytes: file.bytes, mediaType, ext: IMAGE_TYPES[mediaType] };
  });
}
