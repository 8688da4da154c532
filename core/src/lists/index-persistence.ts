import type { Storage } from "unstorage";
import type { ChangeFeed, OrderedCollections, RecordChange } from "../storage/create-storage.js";
import type { CollectionIndex, IndexEntry } from "./collection-index.js";
import { buildIndex } from "./index-build.js";
import { bytesSource, encodeSnapshotParts, entryShape, openSnapshot, snapshotBlocks, type IndexSnapshotStore } from "./index-snapshot.js";
import { pacer, yieldToLoop } from "./pacing.js";
import { orderedBlocks } from "./ordered-blocks.js";
import { RestoringIndex } from "./restoring-index.js";

type ToEntry = (record: unknown) => IndexEntry | null;

/** What the index registry holds per prefix. */
export interface Held {
  /** The index once loaded (what feed changes are applied to). */
  index: Promise<CollectionIndex<IndexEntry>>;
  /** The index once loaded and, on a shared store, the others brought up to it (what get() hands out). */
  ready: Promise<CollectionIndex<IndexEntry>>;
  toEntry: ToEntry;
  /** Set once `ready` has resolved (the index follows every change the registry reads from then on). */
  settled?: boolean;
  loaded?: CollectionIndex<IndexEntry>;
  /** The token of the persisted snapshot this index matches, if any (nothing to write while it holds). */
  persisted?: string;
  /** On a shared store: a feed change reached this index since it was restored or persisted. */
  changed?: boolean;
  /** The index being loaded newest first, while lists by `created_at` may be answered from it. */
  early?: RestoringIndex<IndexEntry>;
  /** A change to the collection reached the registry since the load began: `early` no longer answers. */
  dirty?: boolean;
  /** Resolves once `early` is set or the load has ended, whichever comes first. */
  opened: Promise<void>;
}

/** Options of an {@link IndexRegistry}. */
export interface IndexRegistryOptions {
  /** Where indexes are persisted (Redis); without it every index is loaded from its records. */
  snapshots?: IndexSnapshotStore;
  /** A store that orders collections by `created_at` (SQLite): indexes load from it newest block first. */
  ordered?: OrderedCollections;
  /** Indexes smaller than this are never persisted: reading their records is as quick (default 500). */
  persistMin?: number;
}

/** Feed changes read per call while bringing a snapshot up to date. */
const CATCH_UP_PAGE = 1000;

/** The parent prefix of a record key (`acct:a:products` of `acct:a:products:p1`), or null at the root. */
export function parentOf(key: string): string | null {
  const cut = key.lastIndexOf(":");
  return cut < 0 ? null : key.slice(0, cut);
}

/**
 * The index of `prefix` from its persisted snapshot, or null when there is none or it cannot be trusted:
 * unreadable, of another format or entry shape, damaged (checksum, count, order), or stale beyond repair.
 * The snapshot's token is a feed position: the feed must still hold it (a trimmed or recreated feed cannot
 * say what changed since), and every change after it is laid over the entries. `early` is handed the index
 * being restored once the snapshot is checked: lists by `created_at` can be answered from its newest blocks
 * (`restoring-index.ts`).
 */
export async function restoreIndex(
  store: IndexSnapshotStore,
  prefix: string,
  toEntry: ToEntry,
  feed: ChangeFeed,
  early?: (restoring: RestoringIndex<IndexEntry>) => void,
): Promise<{ index: CollectionIndex<IndexEntry>; token: string } | null> {
  const source = store.open ? await store.open(prefix) : await store.read(prefix).then((bytes) => bytes && bytesSource(bytes));
  if (!source) return null;
  const snapshot = openSnapshot(source, prefix, entryShape(toEntry));
  if (!snapshot) return null;
  const changes = await changesSince(feed, prefix, snapshot.token);
  if (!changes) return null;
  // By id, what each changed record's entry is now: the last change wins, as applying them in turn would.
  const latest = new Map<string, IndexEntry | null>();
  for (const change of changes) latest.set(change.key.slice(prefix.length + 1), change.value === null ? null : toEntry(change.value));
  const restoring = new RestoringIndex<IndexEntry>(snapshotBlocks(snapshot), latest);
  early?.(restoring);
  const index = await restoring.load();
  if (!index) return null;
  const pace = pacer();
  for (const [id, entry] of latest) {
    // An upsert into a large sorted list moves memory: yield every few milliseconds on a long catch-up.
    await pace();
    if (entry) index.upsert(entry);
    else index.remove(id);
  }
  return { index, token: snapshot.token };
}

/** The feed's changes to records directly under `prefix` after `token`, or null when the feed no longer holds it. */
async function changesSince(feed: ChangeFeed, prefix: string, token: string): Promise<RecordChange[] | null> {
  if (!feed.has || !(await feed.has(token))) return null;
  const changes: RecordChange[] = [];
  let cursor = token;
  for (;;) {
    const page = await feed.read(cursor, CATCH_UP_PAGE);
    if (page.gap) return null;
    cursor = page.cursor;
    for (const change of page.changes) if (parentOf(change.key) === prefix) changes.push(change);
    if (page.changes.length < CATCH_UP_PAGE) return changes;
    await yieldToLoop();
  }
}

/** Writes the snapshot of `entries` (in `created_at` order, valid at feed position `token`) for `prefix`. */
export async function persistIndex(store: IndexSnapshotStore, prefix: string, toEntry: ToEntry, token: string, entries: readonly IndexEntry[]): Promise<void> {
  await store.write(prefix, await encodeSnapshotParts(prefix, entryShape(toEntry), token, entries));
}

/** What {@link loadIndex} works with. */
export interface LoadContext {
  storage: Storage;
  snapshots?: IndexSnapshotStore;
  ordered?: OrderedCollections;
  feed?: ChangeFeed;
}

/**
 * The index of `prefix`: on SQLite read from the records newest block first (handed to `early` while it
 * loads); on Redis restored from its snapshot when that can be trusted (likewise); otherwise built from the
 * records. `token` is the feed position of the snapshot it was restored from; the registry persists an
 * index built on Redis once it follows the feed.
 */
export async function loadIndex(
  ctx: LoadContext,
  prefix: string,
  toEntry: ToEntry,
  early?: (restoring: RestoringIndex<IndexEntry>) => void,
): Promise<{ index: CollectionIndex<IndexEntry>; token?: string }> {
  const { snapshots, ordered, feed } = ctx;
  if (ordered) {
    const restoring = new RestoringIndex<IndexEntry>(orderedBlocks(ordered, ctx.storage, prefix, toEntry));
    early?.(restoring);
    const index = await restoring.load().catch(() => null);
    if (index) return { index };
  } else if (snapshots && feed) {
    // A snapshot that cannot be read or trusted is rebuilt, never used (a damaged block, Redis down).
    const restored = await restoreIndex(snapshots, prefix, toEntry, feed, early).catch(() => null);
    if (restored) return restored;
  }
  return { index: await buildIndex(ctx.storage, prefix, toEntry) };
}
