import type { Storage } from "unstorage";
import type { OrderedCollections } from "../storage/create-storage.js";
import { assertReadable } from "../storage/guarded-stores.js";
import { compareByCreated, type IndexEntry } from "./collection-index.js";

/** Rows of the first block: small, so the first page of a list is answered within milliseconds of a start. */
const FIRST_BLOCK = 128;
/** Rows of every later block: a `JSON.parse` each, about two milliseconds of work, so a slice stays short. */
const BLOCK = 256;

/**
 * The entries of collection `prefix`, newest block first, read from a store that orders its collections by
 * `created_at` (SQLite: one index range per block, so nothing needs persisting beside the records). A record
 * that is not readable (not JSON, or failing its kind's schema) is named once in the log and left out, as
 * lists leave it out; a record with no `created_at` comes in a last block of its own.
 */
export async function* orderedBlocks(ordered: OrderedCollections, storage: Storage, prefix: string, toEntry: (record: unknown) => IndexEntry | null): AsyncGenerator<IndexEntry[]> {
  const entryOf = (key: string, text: string): IndexEntry | null => {
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      // Not JSON (a torn or emptied row): the check below names it, as the guarded read would.
      record = text;
    }
    try {
      assertReadable(storage, key, record);
      return toEntry(record);
    } catch {
      return null;
    }
  };
  let before: readonly [string, string] | null = null;
  for (let limit = FIRST_BLOCK; ; limit = BLOCK) {
    const rows = ordered.newest(prefix, before, limit);
    const entries: IndexEntry[] = [];
    for (let i = rows.length - 1; i >= 0; i--) {
      const entry = entryOf(rows[i]![0], rows[i]![1]);
      if (entry) entries.push(entry);
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
