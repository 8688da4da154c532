import type { Storage } from "unstorage";
import type { OrderedCollections } from "../storage/create-storage.js";
import { entryFromText } from "../storage/guarded-stores.js";
import { compareByCreated, type IndexEntry } from "./collection-index.js";
import { pacer } from "./pacing.js";

/**
 * Rows of the first block: little more than a first page of 20 and the one after it that says more follow,
 * because right after a start each row's parse and schema check runs as cold code, a good fraction of a
 * millisecond each, and the first list waits for this block.
 */
const FIRST_BLOCK = 32;
/** Rows of every later block: one index range read each. */
const BLOCK = 256;
/** Rows checked between two looks at the clock: a block is cut into slices of about 8 ms (`pacer`). */
const ROWS_PER_LOOK = 8;

/**
 * The entries of collection `prefix`, newest block first, read from a store that orders its collections by
 * `created_at` (SQLite: one index range per block, so nothing needs persisting beside the records). A record
 * that is not readable (not JSON, or failing its kind's schema) is named once in the log and left out, as
 * lists leave it out; a record with no `created_at` comes in a last block of its own.
 */
export async function* orderedBlocks(ordered: OrderedCollections, storage: Storage, prefix: string, toEntry: (record: unknown) => IndexEntry | null): AsyncGenerator<IndexEntry[]> {
  const entryOf = (key: string, text: string) => entryFromText(storage, key, text, toEntry);
  const pace = pacer();
  let before: readonly [string, string] | null = null;
  for (let limit = FIRST_BLOCK; ; limit = BLOCK) {
    const rows = ordered.newest(prefix, before, limit);
    const entries: IndexEntry[] = [];
    for (let i = rows.length - 1; i >= 0; i--) {
      const entry = entryOf(rows[i]![0], rows[i]![1]);
      if (entry) entries.push(entry);
      // Cold code (the blocks after the first) can take a millisecond a row: yield within a block. The
      // first block is read in one go: a first list waits for it, and it is short.
      if (limit !== FIRST_BLOCK && i % ROWS_PER_LOOK === 0) await pace();
    }
    yield entries;
    if (rows.length < limit) break;
    const last = rows[rows.length - 1]!;
    before = [last[2], last[0]];
  }
  const undated: IndexEntry[] = [];
  for (const [key, text] of ordered.undated(prefix)) {
    const entry = entryOf(key, text);
    if (entry) undated.push(entry);
  }
  if (undated.length > 0) yield undated.sort(compareByCreated);
}
