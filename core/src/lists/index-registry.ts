import type { Storage } from "unstorage";
import type { ChangeFeed, OrderedCollections, RecordChange } from "../storage/create-storage.js";
import { CollectionIndex, type IndexEntry } from "./collection-index.js";
import { loadIndex, persistIndex, type Held, type IndexRegistryOptions } from "./index-persistence.js";
import type { IndexSnapshotStore } from "./index-snapshot.js";
import { applyChange, listingOf, type IndexListing } from "./index-listing.js";
import type { RestoringIndex } from "./restoring-index.js";

type ToEntry = (record: unknown) => IndexEntry | null;
export type { IndexListing, IndexRegistryOptions };

/**
 * Called with every change read from the feed (this process's writes included), or with null when the feed
 * had a gap: then anything derived from records must be forgotten.
 */
export type ChangeListener = (change: RecordChange | null) => void;

/** Changes read per feed call while catching up. */
const FEED_PAGE = 1000;

/**
 * Holds one {@link CollectionIndex} per storage prefix, made on first use (read newest first from a store
 * that orders its collections, restored from a trusted snapshot, or built from the records in slices that
 * yield: `index-persistence.ts`) and kept current by the services
 * that write to it. On a store several processes share (it has a change feed), every {@link get} first reads
 * the feed and applies each change to the index of the key's parent prefix, so an index answers with every
 * write acknowledged anywhere before the call (read your writes). With nothing new that is one feed read; a
 * `gap` (the feed was trimmed past our cursor) drops every index, which then reloads.
 */
export class IndexRegistry {
  private readonly indexes = new Map<string, Held>();
  private readonly listeners: ChangeListener[] = [];
  private cursor: string | null = null;
  /** The feed read under way, and the one queued behind it for callers that came during it. */
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly snapshots?: IndexSnapshotStore;
  private readonly ordered?: OrderedCollections;
  private readonly persistMin: number;
  /** Snapshot writes and removals under way (they never hold up a list). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly storage: Storage,
    private readonly feed?: ChangeFeed,
    options: IndexRegistryOptions = {},
  ) {
    this.snapshots = options.snapshots;
    this.ordered = options.ordered;
    this.persistMin = options.persistMin ?? 500;
  }

  /** Sets the feed position to its head: call once at start, before any index is loaded. */
  async start(): Promise<void> {
    if (this.feed) this.cursor = await this.feed.head();
  }

  /**
   * Also reads the feed every `ms` in the background, so caches that are used without an index (the token
   * cache, on every request) are never more than about `ms` behind other processes. Stopped by {@link stop}.
   */
  poll(ms: number): void {
    if (!this.feed || this.timer) return;
    // An outage is reported by the store's client; the next read (here or by a request) catches up.
    this.timer = setInterval(() => void this.sync().catch(() => {}), ms);
    this.timer.unref?.();
  }

  /** Stops {@link poll}. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Registers a listener for changes read from the feed (caches keyed on records invalidate from it). */
  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /**
   * The index of records under `prefix`, each turned into an entry by `toEntry` (null skips it). On a shared
   * store every index this returns, and every other loaded one, reflects the feed up to a point after the
   * call began: an index loaded now reads the store after the feed read, so the feed is read once more to
   * bring the others as far, and indexes read together agree with each other.
   */
  async get<R, E extends IndexEntry>(prefix: string, toEntry: (record: R) => E | null): Promise<CollectionIndex<E>> {
    if (this.feed) await this.sync();
    return this.hold(prefix, toEntry).ready as unknown as Promise<CollectionIndex<E>>;
  }

  /**
   * What a listing of `prefix` asks its pages of: the index once loaded, or while it is restored a view
   * answering what the snapshot's newest entries say exactly (`index-listing.ts`). Reads the feed first,
   * as {@link get} does.
   */
  async listing<R, E extends IndexEntry>(prefix: string, toEntry: (record: R) => E | null): Promise<IndexListing<E>> {
    if (this.feed) await this.sync();
    const held = this.hold(prefix, toEntry);
    await held.opened;
    return listingOf<E>(held);
  }

  /** The held index of `prefix`, its load started if it was not held yet. */
  private hold<R, E extends IndexEntry>(prefix: string, toEntry: (record: R) => E | null): Held {
    let held = this.indexes.get(prefix);
    if (!held) {
      let opened!: () => void;
      const made = { toEntry: toEntry as ToEntry, opened: new Promise<void>((resolve) => (opened = resolve)) } as Held;
      const context = { storage: this.storage, snapshots: this.snapshots, ordered: this.ordered, feed: this.feed };
      const early = (restoring: RestoringIndex<IndexEntry>) => ((made.early = restoring), opened());
      const index = loadIndex(context, prefix, made.toEntry, early).then((loaded) => {
        made.persisted = loaded.token;
        return loaded.index;
      });
      made.index = index;
      made.ready = this.feed ? index.then(async (loaded) => (await this.sync(), loaded)) : index;
      held = made;
      this.indexes.set(prefix, made);
      made.ready.then(
        (loaded) => {
          made.loaded = loaded;
          made.settled = true;
          made.early = undefined;
          // A shared store's index built from records is persisted once it follows the feed.
          if (this.feed && made.persisted === undefined) this.track(this.persistShared([[prefix, made]]));
        },
        () => {
          if (this.indexes.get(prefix)?.index === index) this.indexes.delete(prefix);
        },
      );
      made.ready.then(opened, opened);
    }
    return held;
  }

  /**
   * Applies this process's own write to the index of `prefix`. On a shared store it does nothing: the feed
   * delivers the write to every process, this one included, before its next {@link get}, so a write costs
   * no feed read.
   */
  async update<R, E extends IndexEntry>(prefix: string, toEntry: (record: R) => E | null, change: (index: CollectionIndex<E>) => void): Promise<void> {
    if (this.feed) return;
    const index = this.get(prefix, toEntry);
    // From now on the snapshot being restored may no longer be the collection as it is.
    this.indexes.get(prefix)!.dirty = true;
    change(await index);
  }

  /**
   * Registers an empty index for a prefix known to hold nothing yet (a collection that was just made),
   * so its first use does not scan storage: the memory driver lists every key for any prefix.
   */
  seedEmpty(prefix: string, toEntry?: (record: never) => IndexEntry | null): void {
    // On a shared store the feed needs the prefix's toEntry to keep the index current; without it, load.
    if (this.feed && !toEntry) return;
    if (!this.indexes.has(prefix)) {
      const empty = new CollectionIndex<IndexEntry>();
      const index = Promise.resolve(empty);
      this.indexes.set(prefix, { index, ready: index, toEntry: (toEntry ?? (() => null)) as ToEntry, settled: true, loaded: empty, opened: Promise.resolve() });
    }
  }

  /** Forgets the index of one prefix (its records were removed), and its persisted snapshot. */
  drop(prefix: string): void {
    this.indexes.delete(prefix);
    if (this.snapshots) this.track(this.snapshots.remove(prefix));
  }

  /** Forgets every index (after a reset or an import), and every persisted snapshot. */
  clear(): void {
    this.indexes.clear();
    if (this.snapshots) this.track(this.snapshots.removeAll());
  }

  /**
   * Persists every index whose snapshot is missing or out of date (Redis): call at close, once no write is
   * under way. Failures (Redis at `maxmemory`) only cost the next start a rebuild.
   */
  async flush(): Promise<void> {
    await this.settle();
    if (!this.snapshots || !this.feed) return;
    const held = [...this.indexes].filter(([, h]) => h.settled && (h.changed || h.persisted === undefined));
    await this.persistShared(held).catch(() => {});
  }

  /** Waits for the snapshot writes and removals under way (tests, close). */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /**
   * Brings every index up to the feed. A call that arrives while a read is under way waits for the next
   * one, which starts after it: a read begun before the call might miss a write acknowledged just before.
   */
  sync(): Promise<void> {
    if (!this.feed) return Promise.resolve();
    if (!this.running) {
      this.running = this.catchUp().finally(() => (this.running = null));
      return this.running;
    }
    if (!this.queued) {
      this.queued = this.running
        .catch(() => {})
        .then(() => {
          this.queued = null;
          return this.sync();
        });
    }
    return this.queued;
  }

  private async catchUp(): Promise<void> {
    const feed = this.feed!;
    if (this.cursor === null) this.cursor = await feed.head();
    // Indexes created after this point load from storage after the read below, so they already hold
    // every change it returns; replaying older changes onto them could step back over newer ones.
    const targets = new Map(this.indexes);
    for (;;) {
      const { cursor, changes, gap } = await feed.read(this.cursor, FEED_PAGE);
      if (gap) {
        this.cursor = await feed.head();
        this.indexes.clear();
        for (const listener of this.listeners) listener(null);
        return;
      }
      this.cursor = cursor;
      for (const change of changes) await this.apply(change, targets);
      if (changes.length < FEED_PAGE) return;
    }
  }

  private async apply(change: RecordChange, targets: Map<string, Held>): Promise<void> {
    for (const listener of this.listeners) listener(change);
    await applyChange(change, this.indexes, targets);
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch(() => {}).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /**
   * Persists indexes of a shared store at the feed position they follow: taken when no feed read is under
   * way (the cursor moves before the changes it read are applied), all in the same turn of the loop.
   */
  private async persistShared(held: [string, Held][]): Promise<void> {
    const snapshots = this.snapshots;
    if (!snapshots) return;
    while (this.running) await this.running.catch(() => {});
    const token = this.cursor;
    if (token === null) return;
    const taken: [string, Held, IndexEntry[]][] = [];
    for (const [prefix, h] of held) {
      const index = h.settled && this.indexes.get(prefix) === h ? h.loaded : undefined;
      if (!index || index.size < this.persistMin) continue;
      taken.push([prefix, h, index.entriesByCreated()]);
      h.persisted = token;
      h.changed = false;
    }
    for (const [prefix, h, entries] of taken) await persistIndex(snapshots, prefix, h.toEntry, token, entries);
  }
}
