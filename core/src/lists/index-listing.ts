import type { RecordChange } from "../storage/create-storage.js";
import type { CollectionIndex, IndexEntry, IndexQuery } from "./collection-index.js";
import { parentOf, type Held } from "./index-persistence.js";
import type { PartialPage, RestoringIndex } from "./restoring-index.js";

/**
 * What a listing queries: a loaded index, or one being restored, whose `query` gives null when it cannot
 * answer exactly yet; then `progress` resolves when asking again may succeed.
 */
export interface IndexListing<E extends IndexEntry> {
  query(q: IndexQuery<E>): PartialPage<E>;
  progress?(): Promise<void>;
}

/**
 * The listing of a held index: the index itself once loaded; before that, the snapshot being restored
 * answers while no change to the collection has reached the registry since (`dirty`), and a caller it
 * cannot answer waits for more blocks or for the whole index.
 */
export function listingOf<E extends IndexEntry>(held: Held): IndexListing<E> {
  const whole = (): CollectionIndex<E> | undefined => (held.settled ? (held.loaded as unknown as CollectionIndex<E>) : undefined);
  const loaded = whole();
  // A loaded index answers at once, but for an order it is still sorting in slices.
  if (loaded) return { query: (q) => loaded.page(q), progress: () => loaded.progress() };
  const early = () => (held.dirty ? undefined : (held.early as unknown as RestoringIndex<E> | undefined));
  return {
    query: (q) => {
      const index = whole();
      return index ? index.page(q) : (early()?.query(q) ?? null);
    },
    progress: () => {
      const index = whole();
      if (index) return index.progress();
      const restoring = early();
      return !restoring || restoring.ended ? held.ready.then(() => {}) : restoring.progress();
    },
  };
}

/**
 * Applies a change read from the feed to the held index of the record's collection, if that is one of
 * `targets` (those held when the read began) and still the one `held` has. Whichever read brings it, the
 * change ends answers from the snapshot that collection may be restored from.
 */
export async function applyChange(change: RecordChange, held: ReadonlyMap<string, Held>, targets: ReadonlyMap<string, Held>): Promise<void> {
  const prefix = parentOf(change.key);
  if (prefix === null) return;
  const current = held.get(prefix);
  if (current) current.dirty = true;
  const target = targets.get(prefix);
  // A prefix dropped or reloaded since the read began is left to its own load.
  if (!target || current !== target) return;
  const index = await target.index.catch(() => null);
  if (!index) return;
  const entry = change.value === null ? null : target.toEntry(change.value);
  if (entry) index.upsert(entry);
  else index.remove(change.key.slice(prefix.length + 1));
  target.changed = true;
}
