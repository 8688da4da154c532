import type { Redis } from "ioredis";

/** Most entries the change feed keeps (approximately: `MAXLEN ~`). */
export const FEED_MAXLEN = 100_000;

/**
 * Where one store lives in Redis, under `<prefix><ns>`: a record at `<prefix><ns>:<key>`; the keys directly
 * under a parent in the set `<prefix><ns>l:<parent>` (leaves) and the parents directly under it that have keys
 * below them in `<prefix><ns>b:<parent>` (branches; the root is the empty parent). Listing a prefix walks
 * those sets down from it, one round trip per level, never `KEYS` or a scan of the keyspace.
 */
export interface RedisLayout {
  records: string;
  leaves: string;
  branches: string;
  /** The change feed stream, or null for a store that has none (media). */
  feed: string | null;
  /** About how many entries the feed keeps (`MAXLEN ~`). */
  feedMaxLength: number;
}

/** The layout of namespace `ns` ("d" for records, "m" for media) under `prefix`. */
export function redisLayout(prefix: string, ns: string, feed: boolean, feedMaxLength = FEED_MAXLEN): RedisLayout {
  return {
    records: `${prefix}${ns}:`,
    leaves: `${prefix}${ns}l:`,
    branches: `${prefix}${ns}b:`,
    feed: feed ? `${prefix}changes` : null,
    feedMaxLength,
  };
}

/** One write of {@link writeOps}: set, set only if absent, or remove. */
export type WriteOp = { op: "set" | "setnx"; key: string; value: string | Buffer } | { op: "remove"; key: string };

/**
 * Lua helpers every script that writes records uses to keep the key sets: `link(k)` adds a new key to its
 * parent's leaves and its parent to the branches upwards until a level that already had it; `unlink(k)`
 * removes a key the same way while a level is empty. They read the locals `leaves` and `branches` (the
 * layout's prefixes), which the script must declare before this text.
 */
export const KEY_SET_LUA = `local function parentOf(k) return string.match(k, '^(.*):[^:]*$') or '' end
local function link(k)
  local node = parentOf(k)
  redis.call('SADD', leaves .. node, k)
  while node ~= '' do
    local up = parentOf(node)
    if redis.call('SADD', branches .. up, node) == 0 then break end
    node = up
  end
end
local function unlink(k)
  local node = parentOf(k)
  redis.call('SREM', leaves .. node, k)
  while node ~= '' do
    if redis.call('EXISTS', leaves .. node, branches .. node) > 0 then break end
    local up = parentOf(node)
    redis.call('SREM', branches .. up, node)
    node = up
  end
end
`;

// Every write of a call in one script run, so they are atomic together (a batch), with the key sets and the
// feed entry of each. A new key joins its parent's leaves, and its parent joins the branches upwards until
// a level that already had it; a removed key leaves them the same way, while a level is empty. Only writes
// that change something reach the feed (a removal of nothing does not). Records of the data store are small,
// so SET ... GET tells whether the key is new; media use EXISTS rather than move a large old value around.
// Returns, per op, 1 when it wrote and 0 when it did not (setnx on an existing key, remove of nothing).
export const WRITE_SCRIPT = `
local records, leaves, branches, feed, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
${KEY_SET_LUA}local results = {}
for i = 6, #ARGV, 3 do
  local op, k, v = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local wrote = 1
  if op == 'set' then
    local existed
    if feed ~= '' then existed = redis.call('SET', records .. k, v, 'GET')
    else existed = redis.call('EXISTS', records .. k) == 1; redis.call('SET', records .. k, v) end
    if not existed then link(k) end
  elseif op == 'setnx' then
    if redis.call('SET', records .. k, v, 'NX') then link(k) else wrote = 0 end
  else
    if redis.call('DEL', records .. k) == 1 then unlink(k) else wrote = 0 end
  end
  if wrote == 1 and feed ~= '' then
    if op == 'remove' then redis.call('XADD', feed, 'MAXLEN', '~', maxlen, '*', 'k', k, 'd', '1')
    else redis.call('XADD', feed, 'MAXLEN', '~', maxlen, '*', 'k', k, 'v', v) end
  end
  results[#results + 1] = wrote
end
return results`;

type WithWriteCommand = Redis & { lpWrite(...args: (string | Buffer | number)[]): Promise<number[]> };

/** Applies `ops` in one atomic script run (keys must already be checked); resolves with 1/0 per op. */
export async function writeOps(client: Redis, layout: RedisLayout, ops: readonly WriteOp[]): Promise<number[]> {
  const scripted = client as WithWriteCommand;
  if (typeof scripted.lpWrite !== "function") client.defineCommand("lpWrite", { numberOfKeys: 0, lua: WRITE_SCRIPT });
  const args: (string | Buffer | number)[] = [layout.records, layout.leaves, layout.branches, layout.feed ?? "", layout.feedMaxLength];
  for (const op of ops) args.push(op.op, op.key, op.op === "remove" ? "" : op.value);
  return scripted.lpWrite(...args);
}

/** Every key at or below `node` ("" for all): the leaf and branch sets, one pipelined round trip per level. */
export async function keysUnder(client: Redis, layout: RedisLayout, node: string): Promise<string[]> {
  const keys: string[] = [];
  let frontier = [node];
  while (frontier.length > 0) {
    const pipeline = client.pipeline();
    for (const n of frontier) pipeline.smembers(layout.leaves + n).smembers(layout.branches + n);
    const results = (await pipeline.exec()) ?? [];
    const next: string[] = [];
    results.forEach(([error, members], i) => {
      if (error) throw error;
      (i % 2 === 0 ? keys : next).push(...(members as string[]));
    });
    frontier = next;
  }
  return keys;
}
