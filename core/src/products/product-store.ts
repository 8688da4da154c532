import type { Storage } from "unstorage";
import type { CollectionIndex } from "../lists/collection-index.js";
import type { IndexRegistry } from "../lists/index-registry.js";
import { tableListing } from "../lists/table-listing.js";
import { readText, type BatchFence, type BatchOp } from "../storage/create-storage.js";
import { entryFromText } from "../storage/guarded-stores.js";
import type { ProductFilter, ProductOrder, ProductTables } from "../storage/sqlite-products.js";
import { mediaBytesUsed, type UsageReader } from "./product-quotas.js";
import { toProductEntry, type ProductEntry, type ProductRecord } from "./product-view.js";

/** Storage keys of the product aggregate. */
export const productKeys = {
  product: (accountId: string, id: string) => `acct:${accountId}:products:${id}`,
  products: (accountId: string) => `acct:${accountId}:products`,
};

/** What the quota check reads of an index: its size, its entries' bytes, and an entry's object as a product's state. */
const indexUsage =
  (index: CollectionIndex<ProductEntry>): UsageReader =>
  (claimId, pending) => ({
    products: index.size,
    bytes: () => mediaBytesUsed(index),
    claimed: index.get(claimId),
    landed: pending.map((write) => index.get(write.id) !== write.before),
  });

/**
 * The one place products are read and written. A product is one record (its images' bytes live in the
 * media store, written before the record names them), so every change is a single write; edits are
 * serialized by the product's lock and start from a fresh read of the record, never from an index.
 *
 * With `tables` (SQLite), lists and quota totals come from the database's indexes and triggers, so no index
 * of products is held in memory; memory and Redis keep one per account in the registry.
 */
export function createProductStore(deps: { storage: Storage; batch: (ops: readonly BatchOp[], fence?: BatchFence) => Promise<void>; indexes: IndexRegistry; tables?: ProductTables }) {
  const { storage, indexes, tables } = deps;
  // A listing from the database parses each record for its entry: the page's records are those, not read again.
  const parsed = new WeakMap<ProductEntry, ProductRecord>();
  const toEntry = (record: ProductRecord) => {
    const entry = toProductEntry(record);
    if (entry) parsed.set(entry, record);
    return entry;
  };
  const entryOf = (key: string, text: string) => entryFromText(storage, key, text, toEntry);
  return {
    /**
     * A reader of what the account's products take of its quotas, called in the same synchronous step as the
     * check that uses it: the index's (loaded first if need be), or SQLite's totals and texts, one read.
     */
    usage: async (accountId: string): Promise<UsageReader> => {
      const parent = productKeys.products(accountId);
      if (!tables) return indexUsage(await indexes.get(parent, toProductEntry));
      const keyOf = (id: string) => productKeys.product(accountId, id);
      return (claimId, pending) => {
        const read = tables.usage(parent, keyOf(claimId), pending.map((write) => [keyOf(write.id), (write.before as string | null) ?? null] as const));
        return { products: read.products, bytes: () => read.bytes, claimed: read.claimed, landed: read.landed };
      };
    },
    /**
     * What a listing asks its page of: the database's indexes, the index, or while that is restored its newest
     * entries. `filter` lets the database rule rows out before they are read (it may keep more than match).
     */
    listing: async (accountId: string, filter?: ProductFilter) => {
      const parent = productKeys.products(accountId);
      if (!tables) return indexes.listing(parent, toProductEntry);
      const rows = (field: string, descending: boolean, after: readonly [string | number | null, string] | null, limit: number) =>
        tables.page(parent, field as ProductOrder, descending, after, limit, filter);
      return tableListing(rows, (id) => productKeys.product(accountId, id), entryOf, filter !== undefined);
    },
    /** The record a listing from the database read for `entry`, checked then; undefined for an index's entry. */
    recordOf: (entry: ProductEntry): ProductRecord | undefined => parsed.get(entry),
    /** The stored record, soft-deleted or not. */
    read: (accountId: string, id: string) => storage.getItem<ProductRecord>(productKeys.product(accountId, id)),
    /** The stored record's text, unparsed (soft-deleted or not): for readers that memoise what they derive from it. */
    readText: (accountId: string, id: string) => readText(storage, productKeys.product(accountId, id)),
    /**
     * Stores the record, with `also` (its event's outbox entry) in the same batch, and keeps this process's
     * index in step (a soft-deleted product leaves it). An edit passes the fence of the product's lock: a
     * shared store refuses it once that lease has ended.
     */
    async write(record: ProductRecord, fence?: BatchFence, also: readonly BatchOp[] = []) {
      const key = productKeys.product(record.account_id, record.id);
      if (fence || also.length > 0) await deps.batch([{ key, value: record }, ...also], fence);
      else await storage.setItem(key, record);
      if (tables) return;
      const entry = toProductEntry(record);
      await indexes.update(productKeys.products(record.account_id), toProductEntry, (index) => (entry ? index.upsert(entry) : index.remove(record.id)));
    },
  };
}
