import type { Storage } from "unstorage";
import { tableListing } from "../lists/table-listing.js";
import type { OrderedCollections } from "../storage/create-storage.js";
import { entryFromText } from "../storage/guarded-stores.js";
import { toDeliveryEntry } from "./records.js";

/**
 * The listing of one endpoint's deliveries (`parent`, the collection `webhooks:deliveries:<endpoint>`) newest
 * first, read from SQLite's `records_by_created` through `rows` (the store's `ordered`), the only order a
 * deliveries list offers: nothing is held in memory, however many deliveries are stored. A row whose record
 * is damaged is skipped and logged once by `storage`, as lists do.
 */
export function deliveriesFromTable(storage: Storage, rows: OrderedCollections, parent: string) {
  const read = (field: string, descending: boolean, after: readonly [string | number | null, string] | null, limit: number) => {
    if (field !== "created_at" || !descending) throw new Error(`deliveries are listed newest first only (asked ${descending ? "-" : ""}${field})`);
    return rows.newest(parent, after && [String(after[0]), after[1]], limit);
  };
  return tableListing(read, (id) => `${parent}:${id}`, (key, text) => entryFromText(storage, key, text, toDeliveryEntry));
}
