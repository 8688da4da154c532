import type { Storage } from "unstorage";
import type { ChangeFeed, RecordChange } from "../storage/create-storage.js";
import type { CollectionIndex, IndexEntry } from "./collection-index.js";
import { buildIndex } from "./index-build.js";
import { bytesSource, encodeSnapshotParts, entryShape, openSnapshot, pacer, yieldToLoop, type IndexSnapshotStore, type Stamp } from "./index-snapshot.js";
import { RestoringIndex } from "./restoring-index.js";
import { addUnlisted, checkStale, readAhead, type StaleCheck } from "./stale-snapshot.js";

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
  /** The index being restored from its snapshot, while lists by `created_at` may be answered from it. */
  early?: RestoringIndex<IndexEntry>;
  /** A change to the collection reached the registry since the load began: `early` no longer answers. */
  dirty?: boolean;
  /** Resolves once `early` is set or the load has ended, whichever comes first. */
  opened: Promise<void>;
}

/** Options of an {@link IndexRegistry}. */
export interface IndexRegistryOptions {
  /** Where indexes are persisted (fs, Redis); without it every index is built from its records. */
  snapshots?: IndexSnapshotStore;
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
 * Without a change feed (fs), a snapshot whose folder token no longer holds is checked against the files
 * when `storage` is given (`stale-snapshot.ts`): the records changed since it was taken are read again and
 * laid over it, those removed left out, and the stamp it was checked at is returned as `rescanned`; a
 * folder swapped since is rebuilt. With a feed (Redis), the snapshot's token is a feed position: the feed
 * must still hold it (a trimmed or recreated feed cannot say what changed since), and every change after it
 * is applied to the entries. `early` is handed the index being restored once the snapshot is checked, with
 * those changes laid over it: lists by `created_at` can be answered from its newest blocks
 * (`restoring-index.ts`).
 */
export async function restoreIndex(
  store: IndexSnapshotStore,
  prefix: string,
  toEntry: ToEntry,
  feed: ChangeFeed | undefined,
  early?: (restoring: RestoringIndex<IndexEntry>) => void,
  storage?: Storage,
): Promise<{ index: CollectionIndex<IndexEntry>; token?: string; rescanned?: Stamp } | null> {
  const stamp = !feed && store.stamp ? await store.stamp(prefix) : null;
  if (!feed && !stamp) return null;
  const opening = store.open ? store.open(prefix) : store.read(prefix).then((bytes) => bytes && bytesSource(bytes));
  // fs: the records the key journal names are read while the snapshot is, in case it turns out stale.
  const ahead = stamp && storage ? readAhead(store, storage, prefix, toEntry) : null;
  const source = await opening;
  if (!source) return null;
  const snapshot = openSnapshot(source, prefix, entryShape(toEntry));
  if (!snapshot) return null;
  // By id, what each changed record's entry is now.
  let latest = new Map<string, IndexEntry | null>();
  let stale: StaleCheck | null = null;
  if (feed) {
    const changes = await changesSince(feed, prefix, snapshot.token);
    if (!changes) return null;
    // The last change wins, as applying them in turn would.
    for (const change of changes) latest.set(change.key.slice(prefix.length + 1), change.value === null ? null : toEntry(change.value));
  } else if (snapshot.token !== stamp!.token) {
    stale = storage ? await checkStale(store, storage, prefix, toEntry, snapshot, ahead) : null;
    if (!stale) return null;
    latest = stale.latest;
  }
  const restoring = new RestoringIndex<IndexEntry>(snapshot, latest, stale?.present);
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
  if (!stale) return { index, token: snapshot.token };
  await addUnlisted(storage!, prefix, toEntry, index, stale);
  return { index, rescanned: stamp! };
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

/** Writes the snapshot of `entries` (in `created_at` order, valid at `token`, and on fs at `basis`) for `prefix`. */
export async function persistIndex(store: IndexSnapshotStore, prefix: string, toEntry: ToEntry, token: string, entries: readonly IndexEntry[], basis?: string): Promise<void> {
  await store.write(prefix, await encodeSnapshotParts(prefix, entryShape(toEntry), token, entries, basis));
}

/** What {@link loadIndex} works with. */
export interface LoadContext {
  storage: Storage;
  snapshots?: IndexSnapshotStore;
  feed?: ChangeFeed;
  /** Smallest index worth persisting. */
  persistMin: number;
}

/**
 * The index of `prefix`: restored from its snapshot when that can be trusted, or checked against the files
 * when its folder changed since (handed to `early` while it is restored: see {@link restoreIndex}),
 * otherwise built from the records. `token` is the snapshot it matches (restored, or being written:
 * `persisting`). Without a feed, an index built or checked against the files is persisted only when the
 * folder's token was settled before it read the records and did not change while it did: then the entries
 * are exactly its records. With a feed, the registry persists it once it follows the feed.
 */
export async function loadIndex(
  ctx: LoadContext,
  prefix: string,
  toEntry: ToEntry,
  early?: (restoring: RestoringIndex<IndexEntry>) => void,
): Promise<{ index: CollectionIndex<IndexEntry>; token?: string; persisting?: Promise<void> }> {
  const { snapshots, feed } = ctx;
  if (snapshots) {
    // A snapshot that cannot be read or trusted is rebuilt, never used (a damaged file, Redis down).
    const restored = await restoreIndex(snapshots, prefix, toEntry, feed, early, ctx.storage).catch(() => null);
    if (restored?.rescanned) return persistIfQuiet(ctx, prefix, toEntry, restored.index, restored.rescanned);
    if (restored) return restored;
  }
  const before = snapshots?.stamp && !feed ? await snapshots.stamp(prefix).catch(() => null) : null;
  const index = await buildIndex(ctx.storage, prefix, toEntry);
  return persistIfQuiet(ctx, prefix, toEntry, index, before);
}

/** `index` of `prefix`, read from the records after `before` was stamped, and its snapshot written if the folder stayed as it was. */
async function persistIfQuiet(ctx: LoadContext, prefix: string, toEntry: ToEntry, index: CollectionIndex<IndexEntry>, before: Stamp | null) {
  const { snapshots } = ctx;
  if (!snapshots || !before?.settled || index.size < ctx.persistMin) return { index };
  const after = await snapshots.stamp!(prefix).catch(() => null);
  if (after?.token !== before.token) return { index };
  return { index, token: before.token, persisting: persistIndex(snapshots, prefix, toEntry, before.token, index.entriesByCreated(), before.basis) };
}

/**
 * Persists the index of `prefix` on a store without a feed (at close: nothing writes any more) unless its
 * snapshot at `persisted` still holds. Returns the token written, or undefined when nothing was.
 */
export async function persistLocal(store: IndexSnapshotStore, prefix: string, toEntry: ToEntry, index: CollectionIndex<IndexEntry>, persisted: string | undefined): Promise<string | undefined> {
  let stamp = await store.stamp?.(prefix).catch(() => null);
  if (!stamp || stamp.token === persisted) return undefined;
  // A token of a change made this very tick could survive the next write: move it out of reach first.
  if (!stamp.settled) stamp = await store.seal?.(prefix).then(() => store.stamp!(prefix)).catch(() => null);
  if (!stamp?.settled) return undefined;
  const entries = index.entriesByCreated();
  const ok = await persistIndex(store, prefix, toEntry, stamp.token, entries, stamp.basis).then(() => true, () => false);
  return ok ? stamp.token : undefined;
}
