import { join } from "node:path";
import { createStorage, normalizeBaseKey, type Driver, type Storage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { createRedisStores, type RedisStoreOptions } from "./redis-stores.js";

/** The storage kinds `lp serve --storage` accepts. */
export type StorageKind = "memory" | "fs" | "redis";

/** One write of a {@link Stores.batch}: a record to store, or (with `remove`) a key to delete. */
export type BatchOp = { key: string; value: unknown } | { key: string; remove: true };

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
}

/** Records and media, kept apart so that media bytes never pass through JSON. */
export interface Stores {
  kind: StorageKind;
  data: Storage;
  media: Storage;
  /**
   * Applies several writes to `data` as one change: on a shared store (Redis) atomically (MULTI/EXEC or one script), so no
   * process ever sees some of them without the others; on memory and fs in order, each write durable before
   * the next (crash recovery of a torn batch is the job of the journal of the aggregate that wrote it).
   */
  batch(ops: readonly BatchOp[]): Promise<void>;
  /** Present on stores that several processes share. */
  changes?: ChangeFeed;
  /** On Redis stores: where the Redis is, for parts that open their own connections (the lock, BullMQ queues). */
  redis?: { url: string; prefix: string };
  dispose(): Promise<void>;
}

/** {@link Stores.batch} on a store without transactions: the writes in order. */
export async function applyInOrder(storage: Storage, ops: readonly BatchOp[]): Promise<void> {
  for (const op of ops) {
    if ("remove" in op) await storage.removeItem(op.key);
    else await storage.setItem(op.key, op.value as never);
  }
}

/**
 * A Storage over one driver. unstorage 1.17's `clear(prefix)` only clears mounts that live under the
 * prefix, so with a single root mount it silently does nothing; here it removes the prefix's keys.
 */
export function toStorage(driver: Driver): Storage {
  const storage = createStorage({ driver });
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
  const make = (sub: string): Storage =>
    toStorage(kind === "fs" ? fsDurableDriver({ base: join(dataDir!, sub) }) : memoryDriver());
  const data = make("data");
  const media = make("media");
  return {
    kind,
    data,
    media,
    batch: (ops) => applyInOrder(data, ops),
    async dispose() {
      await Promise.all([data.dispose(), media.dispose()]);
    },
  };
}
