import { pacer } from "./pacing.js";
import { sortYielding } from "./sort-yielding.js";

/** The fields every indexed record has. Other fields are filter and sort keys. */
export interface IndexEntry {
  id: string;
  created_at: string;
  [field: string]: string | number | boolean | null;
}

/** A position in a sorted listing: the sort value and id of the last item returned. */
export interface KeysetPosition {
  value: string | number | null;
  id: string;
}

/** A request for one page of a listing. */
export interface IndexQuery<E extends IndexEntry> {
  field: keyof E & string;
  descending: boolean;
  after?: KeysetPosition;
  limit: number;
  filter?: (entry: E) => boolean;
}

const compareValues = (a: unknown, b: unknown): number => {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return (a as number) < (b as number) ? -1 : 1;
};

/** The `created_at` order of every index (ties broken by id): what persisted snapshots are stored in. */
export function compareByCreated(a: IndexEntry, b: IndexEntry): number {
  return compareValues(a.created_at, b.created_at) || compareValues(a.id, b.id);
}

/** Up to this many entries an order is sorted at once when first asked for (a millisecond or so). */
const SORT_AT_ONCE = 4096;

/** An order being sorted in slices: the entry each id had when it began, for ids written since. */
interface OrderBuild<E> {
  seen: Map<string, E | null>;
  done: Promise<void>;
}

/**
 * An in-memory index of one collection (say, one account's products) so that a listing never reads every
 * record: it walks sorted entries from the cursor and stops after `limit` matches. Each order a listing has
 * asked for (`created_at` from the load on) is kept sorted on every write. A new order of a large index is
 * sorted in slices that yield to the event loop ({@link page} answers null meanwhile, {@link progress}
 * resolves when it is ready), so a first list by title at 100,000 entries never holds the loop for the sort.
 */
export class CollectionIndex<E extends IndexEntry> {
  private readonly byId = new Map<string, E>();
  private readonly sorted = new Map<string, E[]>();
  private readonly building = new Map<string, OrderBuild<E>>();

  /**
   * An index of entries already in `created_at` order (a persisted snapshot): no sort, so loading a large
   * collection never holds the event loop for a sort, and `pause` (a yield to the event loop) is awaited every
   * 1,024 entries. Null when the entries are not in that order or an id repeats: the caller rebuilds
   * instead of trusting them.
   */
  static async fromSorted<E extends IndexEntry>(entries: E[], pause?: () => Promise<void>): Promise<CollectionIndex<E> | null> {
    const builder = CollectionIndex.inOrder<E>();
    for (let i = 0; i < entries.length; i++) {
      if (!builder.add(entries[i]!)) return null;
      if (pause && i % 1024 === 1023) await pause();
    }
    return builder.done();
  }

  /**
   * Builds an index from entries handed over one by one in `created_at` order (a snapshot being decoded):
   * `add` refuses (false) an entry that does not sort after the previous one or whose id is already there,
   * and the caller then gives up on the whole index. `done` hands over the index; the builder is spent.
   */
  static inOrder<E extends IndexEntry>(): { add(entry: E): boolean; done(): CollectionIndex<E> } {
    const index = new CollectionIndex<E>();
    const list: E[] = [];
    return {
      add(entry) {
        const last = list[list.length - 1];
        if (last && index.compare(last, entry, "created_at") >= 0) return false;
        if (index.byId.has(entry.id)) return false;
        index.byId.set(entry.id, entry);
        list.push(entry);
        return true;
      },
      done() {
        index.sorted.set("created_at", list);
        return index;
      },
    };
  }

  /** Every entry in `created_at` order (a copy: later writes do not change it). Entries are never mutated. */
  entriesByCreated(): E[] {
    return this.sortedBy("created_at").slice();
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): E | undefined {
    return this.byId.get(id);
  }

  /** Adds or replaces an entry. */
  upsert(entry: E): void {
    const previous = this.byId.get(entry.id);
    this.byId.set(entry.id, entry);
    for (const [field, list] of this.sorted) {
      if (previous) list.splice(this.position(list, field, previous), 1);
      list.splice(this.position(list, field, entry), 0, entry);
    }
    this.noteBuilds(entry.id, previous);
  }

  /** Removes an entry if present. */
  remove(id: string): void {
    const previous = this.byId.get(id);
    if (!previous) return;
    this.byId.delete(id);
    for (const [field, list] of this.sorted) list.splice(this.position(list, field, previous), 1);
    this.noteBuilds(id, previous);
  }

  /** Every entry, in no particular order. */
  values(): IterableIterator<E> {
    return this.byId.values();
  }

  /**
   * One page of entries after `after`, plus whether more follow. An order not kept yet is sorted here at
   * once, whatever the size: listings go through {@link page}, which never does that for a large index.
   */
  query(q: IndexQuery<E>): { items: E[]; hasMore: boolean } {
    return this.walk(this.sortedBy(q.field), q);
  }

  /**
   * The page {@link query} gives, or null while the order it needs is being sorted in slices (begun by this
   * call when the index is large and the order was never asked for): then await {@link progress}.
   */
  page(q: IndexQuery<E>): { items: E[]; hasMore: boolean } | null {
    let list = this.sorted.get(q.field);
    if (!list && this.byId.size <= SORT_AT_ONCE) list = this.sortedBy(q.field);
    if (!list) {
      this.build(q.field);
      return null;
    }
    return this.walk(list, q);
  }

  /** Resolves once every order being sorted in slices is kept. */
  async progress(): Promise<void> {
    await Promise.all([...this.building.values()].map((b) => b.done));
  }

  private walk(list: E[], q: IndexQuery<E>): { items: E[]; hasMore: boolean } {
    const items: E[] = [];
    const step = q.descending ? -1 : 1;
    let i: number;
    if (q.after) {
      const probe = { id: q.after.id, [q.field]: q.after.value } as unknown as E;
      const at = this.position(list, q.field, probe);
      // position() is the insertion point; skip the cursor entry itself when it is still there.
      i = q.descending ? at - 1 : at;
      if (!q.descending && list[i] && this.compare(list[i], probe, q.field) === 0) i += 1;
    } else {
      i = q.descending ? list.length - 1 : 0;
    }
    for (; i >= 0 && i < list.length; i += step) {
      const entry = list[i];
      if (q.filter && !q.filter(entry)) continue;
      if (items.length === q.limit) return { items, hasMore: true };
      items.push(entry);
    }
    return { items, hasMore: false };
  }

  private sortedBy(field: string): E[] {
    let list = this.sorted.get(field);
    if (!list) {
      list = [...this.byId.values()].sort((a, b) => this.compare(a, b, field));
      this.sorted.set(field, list);
    }
    return list;
  }

  /**
   * Sorts `field`'s order in slices from the entries as they are now; a write meanwhile notes the entry its
   * id had, and once sorted each noted id's old entry is taken out and its current one put in, so the kept
   * order is the one a sort at that moment would give. The copy sorted is taken before this returns.
   */
  private build(field: string): void {
    if (this.building.has(field)) return;
    const seen = new Map<string, E | null>();
    const base = this.sorted.get("created_at") ?? [...this.byId.values()];
    const done = (async () => {
      const list = await sortYielding(base, (a, b) => this.compare(a, b, field));
      const pace = pacer();
      // Each noted id leaves `seen` as it is applied: a write during a yield below notes it again.
      for (const [id, old] of seen) {
        seen.delete(id);
        if (old) list.splice(this.position(list, field, old), 1);
        const now = this.byId.get(id);
        if (now) list.splice(this.position(list, field, now), 0, now);
        await pace();
      }
      this.building.delete(field);
      // A synchronous query() may have kept this order meanwhile; that one is current.
      if (!this.sorted.has(field)) this.sorted.set(field, list);
    })();
    this.building.set(field, { seen, done });
  }

  /** Notes, for each order being sorted, the entry `id` had before its first write since the sort began. */
  private noteBuilds(id: string, previous: E | undefined): void {
    for (const { seen } of this.building.values()) if (!seen.has(id)) seen.set(id, previous ?? null);
  }

  private compare(a: E, b: E, field: string): number {
    return compareValues(a[field], b[field]) || compareValues(a.id, b.id);
  }

  /** Binary search: index of the first entry not less than `probe`. */
  private position(list: E[], field: string, probe: E): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(list[mid], probe, field) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
