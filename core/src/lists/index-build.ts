import type { Storage } from "unstorage";
import { directKeys } from "../storage/key-chunks.js";
import { skipUnreadable } from "../storage/record-check.js";
import { CollectionIndex, compareByCreated, type IndexEntry } from "./collection-index.js";
import { pacer, yieldToLoop } from "./pacing.js";
import { sortYielding } from "./sort-yielding.js";

/** Records read at once while building. */
const READ_BATCH = 64;

/**
 * Builds the index of the records directly under `prefix` by reading each of them, in batches that yield
 * to the event loop between them, so requests and `/healthz` are answered while a large collection loads.
 * An unreadable record is left out of the list (the guarded store has named it in the log).
 */
export async function buildIndex(storage: Storage, prefix: string, toEntry: (record: unknown) => IndexEntry | null): Promise<CollectionIndex<IndexEntry>> {
  // By id, the last record read wins, as upserts in turn would: ids are then unique in the sorted list.
  const byId = new Map<string, IndexEntry>();
  const pace = pacer();
  // The keys arrive a chunk at a time with turns of the loop between them (`directKeys`), never all at once.
  for await (const keys of directKeys(storage, prefix)) {
    for (let i = 0; i < keys.length; i += READ_BATCH) {
      const reads: Promise<unknown>[] = [];
      for (const key of keys.slice(i, i + READ_BATCH)) {
        const read = skipUnreadable(storage.getItem(key));
        // Handled by Promise.all below; a failure must not count as unhandled while the loop turns meanwhile.
        read.catch(() => {});
        reads.push(read);
        // Reads may be synchronous (SQLite): a batch may take a while to issue.
        await pace();
      }
      for (const record of await Promise.all(reads)) {
        const entry = record ? toEntry(record) : null;
        if (entry) byId.set(entry.id, entry);
      }
      await yieldToLoop();
    }
  }
  const sorted = await sortYielding([...byId.values()], compareByCreated);
  const index = await CollectionIndex.fromSorted(sorted, yieldToLoop);
  if (index) return index;
  // Unreachable with unique ids; kept so a surprise costs a slower load rather than a wrong list.
  const fallback = new CollectionIndex<IndexEntry>();
  for (const entry of sorted) fallback.upsert(entry);
  return fallback;
}
