import type { ChainableCommander } from "ioredis";

const SEGMENT = /^[A-Za-z0-9_.-]+$/;

/** Most entries the change feed keeps (approximately: `MAXLEN ~`). */
export const FEED_MAXLEN = 100_000;

/**
 * Where one store lives in Redis: `<prefix><ns>:<key>` holds a record, `<prefix><ns>k:<parent>` the set of
 * the full keys under `<parent>` (every ancestor of a key has its set, the root's is `<prefix><ns>k:`), so
 * listing a prefix reads one set instead of scanning the keyspace.
 */
export interface RedisLayout {
  record(key: string): string;
  children(parent: string): string;
  /** The change feed stream, or null for a store that has none (media). */
  feed: string | null;
  /** About how many entries the feed keeps (`MAXLEN ~`). */
  feedMaxLength: number;
}

/** The layout of namespace `ns` ("d" for records, "m" for media) under `prefix`. */
export function redisLayout(prefix: string, ns: string, feed: boolean, feedMaxLength = FEED_MAXLEN): RedisLayout {
  return {
    feedMaxLength,
    record: (key) => `${prefix}${ns}:${key}`,
    children: (parent) => `${prefix}${ns}k:${parent}`,
    feed: feed ? `${prefix}changes` : null,
  };
}

/**
 * Refuses keys that are not plain segments joined by `:`, with exactly the fs driver's rule (`.tmp` is its
 * temporary folder), so a key is valid on every storage kind or on none.
 */
export function checkKey(key: string): string {
  const parts = key.split(":");
  if (parts.some((p) => !SEGMENT.test(p) || p === "." || p === ".." || p === ".tmp")) {
    throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

/** The parents of `a:b:c`: "", "a", "a:b". */
export function parentsOf(key: string): string[] {
  const parts = key.split(":");
  const parents = [""];
  for (let i = 1; i < parts.length; i++) parents.push(parts.slice(0, i).join(":"));
  return parents;
}

/** The text a value is stored as, as unstorage's own `setItem` makes it. */
export function toStoredText(value: unknown): string {
  if (value === null || ["string", "number", "boolean", "bigint"].includes(typeof value)) return String(value);
  return JSON.stringify(value);
}

/** Queues the writes of one record (and its feed entry) on a MULTI. */
export function queueSet(multi: ChainableCommander, layout: RedisLayout, key: string, text: string | Buffer): void {
  multi.set(layout.record(key), text);
  for (const parent of parentsOf(key)) multi.sadd(layout.children(parent), key);
  if (layout.feed) multi.xadd(layout.feed, "MAXLEN", "~", layout.feedMaxLength, "*", "k", key, "v", text);
}

/** Queues the removal of one record (and its feed entry) on a MULTI. */
export function queueRemove(multi: ChainableCommander, layout: RedisLayout, key: string): void {
  multi.del(layout.record(key));
  for (const parent of parentsOf(key)) multi.srem(layout.children(parent), key);
  if (layout.feed) multi.xadd(layout.feed, "MAXLEN", "~", layout.feedMaxLength, "*", "k", key, "d", "1");
}

/** Runs a MULTI and throws the first error one of its commands met (EXEC reports them per command). */
export async function execOrThrow(multi: ChainableCommander): Promise<unknown[]> {
  const results = await multi.exec();
  if (!results) throw new Error("Redis transaction was aborted");
  for (const [error] of results) if (error) throw error;
  return results.map(([, value]) => value);
}
