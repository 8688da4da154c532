import type { Storage } from "unstorage";
import type { IndexRegistry } from "../lists/index-registry.js";
import { tableListing } from "../lists/table-listing.js";
import type { OrderedCollections } from "../storage/create-storage.js";
import { entryFromText } from "../storage/guarded-stores.js";
import { toDeliveryEntry, type DeliveryRecord } from "./records.js";

/**
 * How each endpoint's deliveries (the collection `<prefix>:<endpoint>`) are listed: on SQLite (`ordered`, the
 * store's collections newest first) straight from `records_by_created`, the only order a deliveries list offers,
 * so nothing is held in memory however many deliveries are stored; elsewhere from an index per endpoint in the
 * registry, kept in step by {@link record}. A row whose record is damaged is skipped and logged once by
 * `storage`, as lists do.
 */
export function createDeliveryLists(storage: Storage, indexes: IndexRegistry, prefix: string, ordered?: OrderedCollections) {
  const parentOf = (endpointId: string) => `${prefix}:${endpointId}`;
  const index = (endpointId: string) => indexes.get(parentOf(endpointId), toDeliveryEntry);
  return {
    /** What a deliveries list asks its page of: the database, or the index (while restored, its newest blocks). */
    async listing(endpointId: string) {
      if (!ordered) return indexes.listing(parentOf(endpointId), toDeliveryEntry);
      const parent = parentOf(endpointId);
      const read = (field: string, descending: boolean, after: readonly [string | number | null, string] | null, limit: number) => {
        if (field !== "created_at" || !descending) throw new Error(`deliveries are listed newest first only (asked ${descending ? "-" : ""}${field})`);
        return ordered.newest(parent, after && [String(after[0]), after[1]], limit);
      };
      return tableListing(read, (id) => `${parent}:${id}`, (key, text) => entryFromText(storage, key, text, toDeliveryEntry));
    },
    /** Keeps the endpoint's index in step with a stored delivery (nothing to keep on SQLite). */
    async record(d: DeliveryRecord): Promise<void> {
      if (ordered) return;
      const entries = await index(d.endpoint_id);
      const entry = entries.get(d.id);
      // Listings sort deliveries by (created_at, id) only, so a new status is set in place: no re-sort.
      if (entry && entry.created_at === d.created_at) entry.status = d.status;
      else entries.upsert(toDeliveryEntry(d));
    },
    /** A new endpoint has no deliveries: its index starts empty instead of being read from storage. */
    seed(endpointId: string): void {
      if (!ordered) indexes.seedEmpty(parentOf(endpointId));
    },
    /** The ids the endpoint's index holds; null on SQLite, where the caller lists the store's keys instead. */
    async indexed(endpointId: string): Promise<string[] | null> {
      return ordered ? null : [...(await index(endpointId)).values()].map((e) => e.id);
    },
    /** Drops a removed delivery from the endpoint's index. */
    async forget(endpointId: string, id: string): Promise<void> {
      if (!ordered) (await index(endpointId)).remove(id);
    },
  };
}
