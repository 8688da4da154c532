import type { IndexEntry, IndexQuery } from "./collection-index.js";
import type { IndexListing } from "./index-listing.js";
import { yieldToLoop } from "./pacing.js";

/**
 * Rows of one collection in a sort order, as a database's index gives them (`sqlite-products.ts`): the next
 * `limit` rows strictly after `after` (a sort value and a key; fewer at the end of the collection), each its
 * key, its text (null for a row the database already ruled out) and its sort value.
 */
export type SortedRows = (
  field: string,
  descending: boolean,
  after: readonly [string | number | null, string] | null,
  limit: number,
) => ReadonlyArray<readonly [key: string, text: string | null, value: string | number | null]>;

/** Rows read per call after the first, which asks for one page and the row that says more follow. */
const ROWS = 128;
/** Rows read per call after the first when the database filters them: most of a window may be ruled out. */
const WINDOW = 512;
/** Time a page's walk holds the event loop before it yields, when its filter skips many rows. */
const BUDGET_MS = 8;

/**
 * A listing answered from a database's sorted rows instead of an index in memory: nothing is loaded at
 * start, and a page reads its rows from the cursor on. Each row becomes an entry (`entryOf`: null for a
 * record lists skip, soft-deleted or unreadable) and is matched against the query's filter. A filter that
 * skips many rows is walked in slices of about 8 ms: {@link IndexListing.query} then answers null and the
 * next call, after {@link IndexListing.progress}, goes on from the row where it stopped. `keyOf` turns an
 * entry's id into the row key the cursor continues from. With `filtered`, the database rules rows out
 * itself (their text comes as null), and after the first call windows of 512 rows are read.
 */
export function tableListing<E extends IndexEntry>(
  rows: SortedRows,
  keyOf: (id: string) => string,
  entryOf: (key: string, text: string) => E | null,
  filtered = false,
): IndexListing<E> {
  const walks = new WeakMap<IndexQuery<E>, { after: readonly [string | number | null, string] | null; items: E[] }>();
  return {
    query(q) {
      const walk = walks.get(q) ?? { after: q.after ? [q.after.value, keyOf(q.after.id)] : null, items: [] };
      walks.delete(q);
      const started = performance.now();
      for (let limit = q.limit + 1 - walk.items.length; ; limit = filtered ? WINDOW : ROWS) {
        const batch = rows(q.field, q.descending, walk.after, limit);
        for (const [key, text, value] of batch) {
          walk.after = [value, key];
          if (text === null) continue;
          const entry = entryOf(key, text);
          if (!entry || (q.filter && !q.filter(entry))) continue;
          if (walk.items.length === q.limit) return { items: walk.items, hasMore: true };
          walk.items.push(entry);
        }
        if (batch.length < limit) return { items: walk.items, hasMore: false };
        if (performance.now() - started >= BUDGET_MS) {
          walks.set(q, walk);
          return null;
        }
      }
    },
    progress: yieldToLoop,
  };
}
