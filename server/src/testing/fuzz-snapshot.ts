import { createHash } from "node:crypto";
import type { Stores } from "@lp/core";
import type { Storage } from "unstorage";

/**
 * Every stored key of the data and media stores (prefixed `data:` / `media:`) with its value: the stored
 * value itself for in-memory stores (a copy of the map, so thousands of snapshots stay cheap), else a hash.
 */
export type StoreSnapshot = Map<string, unknown>;

const hashOf = (value: unknown) =>
  createHash("sha1")
    .update(typeof value === "string" ? value : value instanceof Uint8Array ? Buffer.from(value) : (JSON.stringify(value) ?? "undefined"))
    .digest("hex");

/** Keys read at once by a snapshot of a store that is not in memory. */
const SNAPSHOT_BATCH = 500;

/** What lp's Redis driver (core/src/storage/redis-driver.ts) is made with: its client and where its records are. */
interface RedisDriverParts {
  client: { mgetBuffer(keys: string[]): Promise<(Buffer | null)[]> };
  layout: { records: string };
}

/**
 * The client and record prefix behind lp's Redis driver, when `storage` is one: a snapshot reads its values with
 * one MGET per batch, where a GET per key cost a socket write each (most of the isolation matrix's CPU on Redis).
 */
function redisPartsOf(storage: Storage): RedisDriverParts | null {
  const driver = storage.getMount("").driver as { name?: string; options?: Partial<RedisDriverParts> };
  const { client, layout } = driver.options ?? {};
  return driver.name === "lp-redis" && typeof client?.mgetBuffer === "function" && typeof layout?.records === "string" ? { client, layout } : null;
}

/** The map behind an unstorage memory driver, when `storage` is one. */
function memoryMapOf(storage: Storage): Map<string, unknown> | null {
  const driver = storage.getMount("").driver as { getInstance?: () => unknown };
  const instance = driver.getInstance?.();
  return instance instanceof Map ? (instance as Map<string, unknown>) : null;
}

/**
 * Takes a snapshot of what is in storage. The in-memory indexes and id sources are not storage and are
 * not part of it: a rejected request may warm an index, but it must not write a record.
 */
export async function takeSnapshot(stores: Pick<Stores, "data" | "media">): Promise<StoreSnapshot> {
  const out: StoreSnapshot = new Map();
  for (const [prefix, storage] of [["data", stores.data], ["media", stores.media]] as const) {
    const map = memoryMapOf(storage);
    if (map) for (const [key, value] of map) out.set(`${prefix}:${key}`, value);
    else {
      const keys = await storage.getKeys();
      const redis = redisPartsOf(storage);
      for (let i = 0; i < keys.length; i += SNAPSHOT_BATCH) {
        const batch = keys.slice(i, i + SNAPSHOT_BATCH);
        // In batches: a bounded number of reads (and open files on fs) at a time.
        const values = redis ? await redis.client.mgetBuffer(batch.map((key) => redis.layout.records + key)) : await Promise.all(batch.map((key) => storage.getItemRaw(key)));
        batch.forEach((key, j) => out.set(`${prefix}:${key}`, hashOf(values[j])));
      }
    }
  }
  return out;
}

const same = (a: unknown, b: unknown) =>
  a === b || (a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b))) || hashOf(a) === hashOf(b);

/**
 * The keys that differ between two snapshots: `+key` added, `-key` removed, `~key` changed. Keys for which
 * `ignore` answers true are left out.
 */
export function diffSnapshots(before: StoreSnapshot, after: StoreSnapshot, ignore: (key: string) => boolean = () => false): string[] {
  const out: string[] = [];
  for (const [key, value] of after) {
    if (ignore(key)) continue;
    if (!before.has(key)) out.push(`+${key}`);
    else if (!same(before.get(key), value)) out.push(`~${key}`);
  }
  for (const key of before.keys()) if (!after.has(key) && !ignore(key)) out.push(`-${key}`);
  return out.sort();
}

/** Idempotency records, which a replayable 404 legitimately stores. */
export const isIdempotencyKey = (key: string) => key.startsWith("data:idem:");
