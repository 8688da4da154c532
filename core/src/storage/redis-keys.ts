import type { ChainableCommander, Redis } from "ioredis";

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

/**
 * Queues the writes of one record (and its feed entry) on a MULTI: what {@link Stores.batch} sends. The key
 * sets get an SADD even when the key existed (a no-op), which a single write avoids ({@link writeOps}).
 */
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

/** One write of {@link writeOps}: set, set only if absent, or remove. */
export type WriteOp = { op: "set" | "setnx"; key: string; value: string | Buffer } | { op: "remove"; key: string };

// The writes of one call in one script run, atomic like MULTI/EXEC, with the same effects as queueSet and
// queueRemove (the key sets of every parent, the feed entry), but cheaper: the key sets are touched only when
// a key appears or disappears, and only writes that change something reach the feed (a removal of nothing
// does not). Records of the data store are small, so SET ... GET tells whether the key is new; media use
// EXISTS rather than move a large old value around. Returns, per op, 1 when it wrote and 0 when not.
const WRITE_SCRIPT = `
local records, children, feed, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local function eachParent(k, fn)
  fn('')
  local from = 1
  while true do
    local at = string.find(k, ':', from, true)
    if not at then return end
    fn(string.sub(k, 1, at - 1))
    from = at + 1
  end
end
local results = {}
for i = 5, #ARGV, 3 do
  local op, k, v = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local wrote = 1
  if op == 'set' then
    local existed
    if feed ~= '' then existed = redis.call('SET', records .. k, v, 'GET')
    else existed = redis.call('EXISTS', records .. k) == 1; redis.call('SET', records .. k, v) end
    if not existed then eachParent(k, function(p) redis.call('SADD', children .. p, k) end) end
  elseif op == 'setnx' then
    if redis.call('SET', records .. k, v, 'NX') then eachParent(k, function(p) redis.call('SADD', children .. p, k) end)
    else wrote = 0 end
  else
    if redis.call('DEL', records .. k) == 1 then eachParent(k, function(p) redis.call('SREM', children .. p, k) end)
    else wrote = 0 end
  end
  if wrote == 1 and feed ~= '' then
    if op == 'remove' then redis.call('XADD', feed, 'MAXLEN', '~', maxlen, '*', 'k', k, 'd', '1')
    else redis.call('XADD', feed, 'MAXLEN', '~', maxlen, '*', 'k', k, 'v', v) end
  end
  results[#results + 1] = wrote
end
return results`;

type WithWriteCommand = Redis & { lpWrite(...args: (string | Buffer | number)[]): Promise<number[]> };

/** Applies `ops` (keys already checked) in one atomic script run; resolves with 1 or 0 per op. */
export async function writeOps(client: Redis, layout: RedisLayout, ops: readonly WriteOp[]): Promise<number[]> {
  const scripted = client as WithWriteCommand;
  // EVALSHA, with EVAL once when Redis does not know the script yet (after a restart too).
  if (typeof scripted.lpWrite !== "function") client.defineCommand("lpWrite", { numberOfKeys: 0, lua: WRITE_SCRIPT });
  const args: (string | Buffer | number)[] = [layout.record(""), layout.children(""), layout.feed ?? "", layout.feedMaxLength];
  for (const op of ops) args.push(op.op, op.key, op.op === "remove" ? "" : op.value);
  return scripted.lpWrite(...args);
}
