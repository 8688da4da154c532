import { CollectionIndex, compareByCreated, type IndexEntry, type IndexQuery } from "./collection-index.js";
import { pacer } from "./pacing.js";

/** A page of a listing, or null when what is loaded so far cannot say it exactly. */
export type PartialPage<E> = { items: E[]; hasMore: boolean } | null;

/**
 * A collection's entries in blocks, newest block first, each block in `created_at` order: a checked
 * snapshot's blocks (Redis), or the records themselves read through the database's index (SQLite). A null
 * block is one that is not what it should be: the load gives up and the index is rebuilt.
 */
export type EntryBlocks<E> = AsyncIterable<E[] | null>;

/**
 * An index being loaded newest block first, so that the first page of a listing by `created_at` descending
 * (the default order) can be answered long before the whole index is built.
 *
 * Why an answer from part of the blocks is the answer the whole index would give: the blocks loaded so far
 * are the newest entries, a suffix of the `created_at` order with nothing missing in between. A descending
 * walk that starts inside that suffix meets exactly the entries the whole index would meet, in the same
 * order, until it leaves the suffix; {@link query} answers only when it found the page and one more match
 * (so `has_more` is known) before leaving it, or when every block is loaded. Any other sort, or a cursor
 * older than the suffix, waits for the whole index.
 *
 * Changes made since a snapshot was taken (on a shared store, read from the change feed before restoring)
 * are laid over it: an entry whose id they name is skipped where the blocks have it, and the entries they
 * add are merged into the walk by `created_at`. Changes after those are not laid over: the registry stops
 * asking once any further change to the collection reaches it.
 */
export class RestoringIndex<E extends IndexEntry> {
  /** Decoded blocks, newest first; each in `created_at` order. */
  private blocks: E[][] = [];
  private waiting: (() => void)[] = [];
  private all = false;
  /** The entries the changes since the snapshot added or replaced, in `created_at` order. */
  private readonly added: E[];

  /** `changes`: by id, the entry each record changed since the snapshot has now (null: removed or no longer listed). */
  constructor(
    private readonly source: EntryBlocks<E>,
    private readonly changes: ReadonlyMap<string, E | null> = new Map(),
  ) {
    this.added = [...changes.values()].filter((e): e is E => e !== null).sort(compareByCreated);
  }

  /** Whether decoding has ended (then only the whole index, or a rebuild, can answer more). */
  get ended(): boolean {
    return this.all;
  }

  /** Resolves once the decoded blocks have doubled in number, or decoding has ended. */
  progress(): Promise<void> {
    if (this.all) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * Takes every block, newest first, yielding every few milliseconds, then builds the whole index (oldest
   * first, checking the order across blocks and that no id repeats). Null when a block is not one.
   */
  async load(): Promise<CollectionIndex<E> | null> {
    const pace = pacer();
    try {
      for await (const entries of this.source) {
        if (!entries) return null;
        const newer = this.blocks[this.blocks.length - 1];
        // Blocks must follow each other in order: the suffix has no gap nor overlap.
        if (newer && entries.length > 0 && compareByCreated(entries[entries.length - 1]!, newer[0]!) >= 0) return null;
        if (entries.length > 0) this.blocks.push(entries);
        this.wake(false);
        await pace();
      }
      this.wake(true);
      const builder = CollectionIndex.inOrder<E>();
      for (let b = this.blocks.length - 1; b >= 0; b--) {
        for (const entry of this.blocks[b]!) if (!builder.add(entry)) return null;
        await pace();
      }
      return builder.done();
    } finally {
      this.blocks = [];
      this.wake(true);
    }
  }

  /**
   * The page `q` asks for, from the blocks decoded so far, or null when they cannot say it exactly (another
   * sort than `created_at` descending, a cursor older than them, or too few matches in them).
   */
  query(q: IndexQuery<E>): PartialPage<E> {
    const { blocks, added, changes } = this;
    if (q.field !== "created_at" || !q.descending || blocks.length === 0) return null;
    let b = 0;
    let i = blocks[0]!.length - 1;
    let a = added.length - 1;
    if (q.after) {
      if (typeof q.after.value !== "string") return null;
      const probe = { id: q.after.id, created_at: q.after.value } as IndexEntry;
      // The newest block holding an entry older than the cursor: the walk starts at the last such entry.
      while (b < blocks.length && compareByCreated(blocks[b]![0]!, probe) >= 0) b++;
      if (b < blocks.length) i = below(blocks[b]!, probe);
      a = below(added, probe);
    }
    // Every entry not decoded yet sorts before this one.
    const oldest = blocks[blocks.length - 1]![0]!;
    const items: E[] = [];
    for (;;) {
      // The next entry of the blocks that no change replaced.
      while (b < blocks.length && (i < 0 || changes.has(blocks[b]![i]!.id))) {
        if (i >= 0) i--;
        else if (++b < blocks.length) i = blocks[b]!.length - 1;
      }
      const kept = b < blocks.length ? blocks[b]![i]! : undefined;
      const fresh = a >= 0 ? added[a]! : undefined;
      let entry: E;
      if (kept && (!fresh || compareByCreated(kept, fresh) > 0)) {
        entry = kept;
        i--;
      } else if (fresh && (this.all || compareByCreated(fresh, oldest) >= 0)) {
        entry = fresh;
        a--;
      } else {
        return this.all ? { items, hasMore: false } : null;
      }
      if (q.filter && !q.filter(entry)) continue;
      if (items.length === q.limit) return { items, hasMore: true };
      items.push(entry);
    }
  }

  private wake(all: boolean): void {
    if (all) this.all = true;
    // Each wake costs a waiting list a walk over what is decoded: waking at 1, 2, 4... blocks bounds that.
    const count = this.blocks.length;
    if (!this.all && (count & (count - 1)) !== 0) return;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

/** Index in `block` (sorted) of the last entry before `probe` (-1 when none is). */
function below<E extends IndexEntry>(block: E[], probe: IndexEntry): number {
  let lo = 0;
  let hi = block.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareByCreated(block[mid]!, probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
