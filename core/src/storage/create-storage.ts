import { join } from "node:path";
import { destr } from "destr";
import { createStorage, normalizeBaseKey, type Driver, type Storage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { readFileOrNull, writeFileAtomic } from "./fs-io.js";
import type { RecordClaims } from "./redis-claim.js";
import { createRedisStores, type RedisStoreOptions } from "./redis-stores.js";
import { replaceFsStores, settleFsReplace } from "./fs-replace.js";
import type { IndexSnapshotStore } from "../lists/index-snapshot.js";
import { exactSnapshots, fsIndexSnapshots } from "./fs-index-snapshots.js";
import { KeyJournal } from "./fs-key-journal.js";
import { attachKeyChunks } from "./key-chunks.js";
import { directBatch, installDirectWrites } from "./direct-writes.js";

/** The storage kinds `lp serve --storage` accepts. */
export type StorageKind = "memory" | "fs" | "redis";

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
   * Applies several writes to `data` as one change: on a shared store (Redis) atomically (MULTI/EXEC or one script), so no
   * process ever sees some of them without the others; on memory in order; on fs as one group commit (every
   * new file flushed in one round, then renamed in order), so a kill leaves a prefix of the writes applied,
   * as it would writing them one by one (crash recovery of a torn batch is the job of the journal of the
   * aggregate that wrote it). Resolves once every write is applied and durable.
   * With a `fence` (a shared lock's lease), a shared store refuses the batch with `service_unavailable` once
   * the lock no longer holds the holder's token; local stores have local locks, which no one takes away.
   */
  batch(ops: readonly BatchOp[], fence?: BatchFence): Promise<void>;
  /** Present on stores that several processes share. */
  changes?: ChangeFeed;
  /** Where persisted list indexes are kept (fs and Redis), so a restart need not read every record. */
  indexSnapshots?: IndexSnapshotStore;
  /**
   * Replaces every record but the `meta:` ones, and every media file (base64 in `media`), so that a reader,
   * or the next start after a kill, finds the old data or the new, never a mix. Memory stores have none
   * (nothing of theirs outlives a kill): the caller clears and writes.
   */
  replace?(records: Record<string, unknown>, media: Record<string, string>): Promise<void>;
  /**
   * fs: resolves once every acknowledged write is in its record file (the log acknowledges a write before
   * its file is renamed into place), for a start that others may read the folder after.
   */
  settle?(): Promise<void>;
  /** On shared stores: the claim and finish of an Idempotency-Key, each one atomic step without a lock. */
  claims?: RecordClaims;
  /** On Redis stores: where the Redis is, for parts that open their own connections (the lock, BullMQ queues). */
  redis?: { url: string; prefix: string };
  /** Where the records are, for log lines: the data dir, or the Redis URL (without password) and prefix. */
  where?: string;
  /** Where one record is kept, for log lines: its file, or its Redis key. */
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
 * Opens the stores of one kind: `fs` needs a data directory, `redis` its URL (and optional key prefix);
 * memory needs nothing.
 */
export function createStores(kind: StorageKind, where?: string | RedisStoreOptions): Stores {
  if (kind === "redis") {
    if (typeof where !== "object" || !where.url) throw new Error("redis storage needs a Redis URL");
    return createRedisStores(where);
  }
  const dataDir = typeof where === "string" ? where : undefined;
  if (kind === "fs" && !dataDir) throw new Error("fs storage needs a data directory");
  // An import a kill cut short is settled before anything reads the folders.
  if (kind === "fs") settleFsReplace(dataDir!);
  // The keys written since the snapshots were taken, so a snapshot left stale by a kill is corrected from them.
  const journal = kind === "fs" ? new KeyJournal(join(dataDir!, "data")) : undefined;
  const drivers =
    kind === "fs" ? [fsDurableDriver({ base: join(dataDir!, "data"), keyJournal: journal }), fsDurableDriver({ base: join(dataDir!, "media"), log: false })] : [memoryDriver(), memoryDriver()];
  const [data, media] = drivers.map(toStorage) as [Storage, Storage];
  const onDisk = kind === "fs" ? dataDir : undefined;
  const formatFile = onDisk ? join(onDisk, "format.json") : "";
  return {
    kind,
    data,
    media,
    ...(onDisk && {
      where: onDisk,
      describeKey: (key: string) => join(onDisk, "data", ...key.split(":")),
      format: {
        where: formatFile,
        read: () => readFileOrNull(formatFile, (error) => (error as NodeJS.ErrnoException).code === "ENOENT").then((bytes) => bytes?.toString("utf8") ?? null),
        // Beside the marker, so the write needs nothing but the data dir itself.
        write: (text: string) => writeFileAtomic(formatFile, `${formatFile}.${process.pid}.tmp`, text, true),
      },
    }),
    // fs: one group commit (the new files flushed together, then renamed in order); memory: in order, at once.
    batch: kind === "fs" ? (ops) => (drivers[0] as unknown as { writeBatch(ops: readonly BatchOp[]): Promise<void> }).writeBatch(ops) : (ops) => directBatch(data, ops).then((done) => (done ? undefined : applyInOrder(data, ops))),
    ...(onDisk && { indexSnapshots: afterSettle(fsIndexSnapshots(onDisk, { journal }), () => (drivers[0] as unknown as { settle(): Promise<void> }).settle()) }),
    ...(kind === "fs"
      ? {
          settle: () => (drivers[0] as unknown as { settle(): Promise<void> }).settle(),
          async replace(records: Record<string, unknown>, files: Record<string, string>) {
            // The data folder is swapped away: nothing of it may wait in its log (the next write starts a new one in the new folder).
            await (drivers[0] as { checkpoint?: () => Promise<void> }).checkpoint?.();
            await replaceFsStores(dataDir!, data, records, files);
            // The folders changed under the drivers: what they cached is of the old ones.
            for (const driver of drivers) (driver as { forgetCache?: () => void }).forgetCache?.();
          },
        }
      : {}),
    async dispose() {
      await Promise.all([data.dispose(), media.dispose()]);
      // A clean stop: the log is checkpointed, so the journal starts over, naming the snapshots exact now.
      if (journal && onDisk) journal.reseal(await exactSnapshots(onDisk));
    },
  };
}

/**
 * fs snapshots whose token (the records folder's modification time) is read only once every acknowledged
 * write is in its record file: a rename landing after the token would make a good snapshot look stale.
 */
export function afterSettle(snapshots: IndexSnapshotStore, settle: () => Promise<void>): IndexSnapshotStore {
  const { stamp, seal } = snapshots;
  return {
    ...snapshots,
    ...(stamp && { stamp: async (prefix: string) => (await settle(), stamp(prefix)) }),
    ...(seal && { seal: async (prefix: string) => (await settle(), seal(prefix)) }),
  };
}
