import type { Storage } from "unstorage";
import { directKeys } from "../storage/key-chunks.js";
import { skipUnreadable } from "../storage/record-check.js";
import { CollectionIndex, compareByCreated, type IndexEntry } from "./collection-index.js";
import { pacer, yieldToLoop } from "./index-snapshot.js";

/** Records read at once while building, and entries sorted or merged between two yields. */
const READ_BATCH = 64;
const RUN = 2048;
const MERGE_STEP = 16_384;

/**
 * Sorts `items` in slices that yield to the event loop: runs of {@link RUN} sorted in place, then merged
 * pairwise, so sorting 100,000 entries never holds the loop for more than a few milliseconds at a time.
 */
export async function sortYielding<T>(items: T[], compare: (a: T, b: T) => number): Promise<T[]> {
  let from = items.slice();
  for (let i = 0; i < from.length; i += RUN) {
    const run = from.slice(i, i + RUN).sort(compare);
    for (let j = 0; j < run.length; j++) from[i + j] = run[j]!;
    await yieldToLoop();
  }
  let to = new Array<T>(from.length);
  let moved = 0;
  for (let width = RUN; width < from.length; width *= 2) {
    for (let lo = 0; lo < from.length; lo += 2 * width) {
      const mid = Math.min(lo + width, from.length);
      const hi = Math.min(lo + 2 * width, from.length);
      let a = lo;
      let b = mid;
      for (let k = lo; k < hi; k++) {
        to[k] = a < mid && (b >= hi || compare(from[a]!, from[b]!) <= 0) ? from[a++]! : from[b++]!;
        if (++moved % MERGE_STEP === 0) await yieldToLoop();
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

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
