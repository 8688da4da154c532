import { destr } from "destr";
import { createStorage, normalizeBaseKey, type Driver, type Storage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import type { RecordClaims } from "./redis-claim.js";
import { createRedisStores, type RedisStoreOptions } from "./redis-stores.js";
import type { IndexSnapshotStore } from "../lists/index-snapshot.js";
import { attachKeyChunks } from "./key-chunks.js";
import { directBatch, installDirectWrites } from "./direct-writes.js";
import { createSqliteStores, type SqliteStoreOptions } from "./sqlite-stores.js";
import type { ProductTables } from "./sqlite-products.js";

/**
 * The kinds of store: `sqlite`, the embedded store on disk (`lp serve`'s default; `--storage fs` is another
 * name for it), `memory` for throwaway runs and tests, `redis` for several processes sharing one service.
 */
export type StorageKind = "memory" | "sqlite" | "redis";

/**
 * One write of a {@link Stores.batch}: a record to store, or (with `remove`) a key to delete. `chain` marks
 * writes that are independent of each other's order: a store may apply two chains' writes side by side,
 * each chain's in order (a group commit gives each caller its own). Without it, the whole batch is one chain.
 */
export type BatchOp = ({ key: string; value: unknown } | { key: string; remove: true }) & { chain?: number };

/**
 * The lock a {@link Stores.batch} is made under, on a shared store: its key and the holder's fencing token.
 * The store writes nothing unless the lock still holds that token.
 */
export interface BatchFence {
  key: string;
  token: string;
}

/** A change to one record, as another process of a cluster learns of it: `value` null means removed. */
export interface RecordChange {
  key: string;
  value: unknown | null;
}

/**
 * The changes written to the data store, in order, for processes that keep derived state (list indexes,
 * caches) and must see each other's writes. Only stores shared by several processes have one.
 */
export interface ChangeFeed {
  /** The position after the newest change: where a reader that has just loaded everything starts. */
  head(): Promise<string>;
  /**
   * The changes after `cursor`, oldest first, and the cursor after them. `gap` is true when changes after
   * `cursor` were already trimmed: the reader must rebuild what it derived instead of applying `changes`.
   */
  read(cursor: string, limit?: number): Promise<{ cursor: string; changes: RecordChange[]; gap: boolean }>;
  /**
   * Whether the change at `cursor` is still in the feed: a position kept from earlier (a persisted index)
   * is only worth reading from when it is, since a feed recreated or trimmed since cannot say what changed.
   */
  has?(cursor: string): Promise<boolean>;
}

/**
 * A store whose engine keeps each collection ordered by `created_at` (SQLite): the records of a collection
 * newest first, `limit` at a time, each block starting after the `[created_at, key]` the previous one ended
 * at, and those without a `created_at`. List indexes load from it newest first, with no snapshot to keep.
 */
export interface OrderedCollections {
  newest(prefix: string, before: readonly [string, string] | null, limit: number): Array<[key: string, text: string, createdAt: string]>;
  undated(prefix: string): Array<[key: string, text: string]>;
}

/** Reads and writes the text of a store's format marker (see `format-version.ts`). */
export interface FormatMarker {
  /** Where it is, for messages: a file, or a Redis key. */
  where: string;
  read(): Promise<string | null>;
  write(text: string): Promise<void>;
}

/** Records and media, kept apart so that media bytes never pass through JSON. */
export interface Stores {
  kind: StorageKind;
  data: Storage;
  media: Storage;
  /**
   * Applies several writes to `data` as one change: on SQLite one transaction, on Redis atomically (MULTI/EXEC
   * or one script), so no reader and no crash ever sees some of them without the others; on memory in order,
   * at once. Resolves once every write is applied and durable.
   * With a `fence` (a shared lock's lease), a shared store refuses the batch with `service_unavailable` once
   * the lock no longer holds the holder's token; local stores have local locks, which no one takes away.
   */
  batch(ops: readonly BatchOp[], fence?: BatchFence): Promise<void>;
  /** Present on stores that several processes share. */
  changes?: ChangeFeed;
  /** Where persisted list indexes are kept (Redis), so a restart need not read every record. */
  indexSnapshots?: IndexSnapshotStore;
  /** On SQLite: collections newest first, for list indexes that load without a snapshot. */
  ordered?: OrderedCollections;
  /** On SQLite: products lists and quota totals read from the database's indexes (`sqlite-products.ts`). */
  products?: ProductTables;
  /**
   * Replaces every record but the `meta:` ones, and every media file (base64 in `media`), so that a reader,
   * or the next start after a kill, finds the old data or the new, never a mix (SQLite: one transaction).
   * Memory stores have none (nothing of theirs outlives a kill): the caller clears and writes.
   */
  replace?(records: Record<string, unknown>, media: Record<string, string>): Promise<void>;
  /** On shared stores: the claim and finish of an Idempotency-Key, each one atomic step without a lock. */
  claims?: RecordClaims;
  /** On Redis stores: where the Redis is, for parts that open their own connections (the lock, BullMQ queues). */
  redis?: { url: string; prefix: string };
  /** Where the records are, for log lines: the data dir, or the Redis URL (without password) and prefix. */
  where?: string;
  /** Where one record is kept, for log lines: its database and key, or its Redis key. */
  describeKey?(key: string): string;
  /** The store's format marker (`format.json` of a data dir, `meta:format` under a Redis prefix); none in memory. */
  format?: FormatMarker;
  dispose(): Promise<void>;
}

/** {@link Stores.batch} on a store without transactions: the writes in order. */
export async function applyInOrder(storage: Storage, ops: readonly BatchOp[]): Promise<void> {
  for (const op of ops) {
    if ("remove" in op) await storage.removeItem(op.key);
    else await storage.setItem(op.key, op.value as never);
  }
}

/** A key unstorage's `normalizeKey` leaves as it is and that has no `.`/`..` segment. */
const PLAIN_KEY = /^[\w-][\w.-]*(?::[\w-][\w.-]*)*$/;

const TEXT_READER = Symbol("lp.readText");
type TextReader = (key: string) => Promise<string | null>;

/**
 * The stored text of a record, as the driver holds it, without parsing it: for readers that keep what they
 * derive from a record while its text stays the same ({@link createTextMemo}). A storage not made by
 * {@link toStorage} answers with its parsed item serialised again.
 */
export function readText(storage: Storage, key: string): Promise<string | null> {
  const reader = (storage as Storage & { [TEXT_READER]?: TextReader })[TEXT_READER];
  if (reader) return reader(key);
  return storage.getItem(key).then((value) => (value === null || value === undefined ? null : typeof value === "string" ? value : JSON.stringify(value)));
}

/**
 * A Storage over one driver. unstorage 1.17's `clear(prefix)` only clears mounts that live under the
 * prefix, so with a single root mount it silently does nothing; here it removes the prefix's keys.
 */
export function toStorage(driver: Driver): Storage {
  const storage = createStorage({ driver });
  const getItem = storage.getItem.bind(storage);
  // The read of every GET: a key that is already in unstorage's normal form (colon-separated segments of
  // word characters, dots and hyphens, none only dots) goes straight to the single driver and `destr`, as
  // unstorage would do after normalising it, without its key rewriting, mount lookup and extra promises.
  // Any other key takes unstorage's path (which also refuses the invalid ones).
  storage.getItem = ((key: string, opts?: Record<string, unknown>) => {
    if (typeof key !== "string" || !PLAIN_KEY.test(key)) return getItem(key, opts);
    try {
      const value = driver.getItem(key, opts ?? {});
      return value instanceof Promise ? value.then(destr) : Promise.resolve(destr(value));
    } catch (error) {
      return Promise.reject(error);
    }
  }) as Storage["getItem"];
  // The text behind the same fast path: what the driver holds for a record (JSON text on every driver of
  // the data store). Other keys, and a driver answering with something else, go through `getItem`.
  const textOf = (value: unknown) => (value === null || value === undefined ? null : typeof value === "string" ? value : JSON.stringify(value));
  (storage as Storage & { [TEXT_READER]: TextReader })[TEXT_READER] = (key) => {
    if (typeof key !== "string" || !PLAIN_KEY.test(key)) return storage.getItem(key).then(textOf);
    try {
      const value = driver.getItem(key, {});
      return value instanceof Promise ? value.then(textOf) : Promise.resolve(textOf(value));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  // Index builds list one collection in chunks through the driver, when it can (`directKeys`).
  attachKeyChunks(storage, driver);
  installDirectWrites(storage, driver, PLAIN_KEY);
  const clearAll = storage.clear.bind(storage);
  storage.clear = async (base?: string, opts?: Record<string, unknown>) => {
    if (!base || !normalizeBaseKey(base)) return clearAll(base, opts);
    const keys = await storage.getKeys(base);
    await Promise.all(keys.map((key) => storage.removeItem(key)));
  };
  return storage;
}

/**
 * Opens the stores of one kind: `sqlite` needs a data directory, `redis` its URL (and optional key prefix);
 * memory needs nothing.
 */
export function createStores(kind: StorageKind, where?: string | RedisStoreOptions, options: SqliteStoreOptions = {}): Stores {
  if (kind === "redis") {
    if (typeof where !== "object" || !where.url) throw new Error("redis storage needs a Redis URL");
    return createRedisStores(where);
  }
  if (kind === "sqlite") {
    if (typeof where !== "string" || !where) throw new Error("sqlite storage needs a data directory");
    return createSqliteStores(where, options);
  }
  const [data, media] = [toStorage(memoryDriver()), toStorage(memoryDriver())];
  return {
    kind,
    data,
    media,
    batch: (ops) => directBatch(data, ops).then((done) => (done ? undefined : applyInOrder(data, ops))),
    async dispose() {
      await Promise.all([data.dispose(), media.dispose()]);
    },
  };
}
