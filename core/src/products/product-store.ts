import type { Storage } from "unstorage";
import type { IndexRegistry } from "../lists/index-registry.js";
import { readText, type BatchFence, type BatchOp } from "../storage/create-storage.js";
import { toProductEntry, type ProductRecord } from "./product-view.js";

/** Storage keys of the product aggregate. */
export const productKeys = {
  product: (accountId: string, id: string) => `acct:${accountId}:products:${id}`,
  products: (accountId: string) => `acct:${accountId}:products`,
};

/**
 * The one place products are read and written. A product is one record (its images' bytes live in the
 * media store, written before the record names them), so every change is a single write; edits are
 * serialized by the product's lock and start from a fresh read of the record, never from an index.
 */
export function createProductStore(deps: { storage: Storage; batch: (ops: readonly BatchOp[], fence?: BatchFence) => Promise<void>; indexes: IndexRegistry }) {
  const { storage, indexes } = deps;
  return {
    /** The listing index of an account's products (current with every process's writes on a shared store). */
    index: (accountId: string) => indexes.get(productKeys.products(accountId), toProductEntry),
    /** What a listing asks its page of: the index, or while it is restored after a start its newest entries. */
    listing: (accountId: string) => indexes.listing(productKeys.products(accountId), toProductEntry),
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
      const entry = toProductEntry(record);
      await indexes.update(productKeys.products(record.account_id), toProductEntry, (index) => (entry ? index.upsert(entry) : index.remove(record.id)));
    },
  };
}
