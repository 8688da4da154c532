import type { Redis } from "ioredis";
import { defineDriver } from "unstorage";
import { redisCall } from "./redis-client.js";
import { checkKey, execOrThrow, parentsOf, queueRemove, queueSet, type RedisLayout } from "./redis-keys.js";

/** Options of {@link redisDriver}. */
export interface RedisDriverOptions {
  client: Redis;
  layout: RedisLayout;
}

/** `setItem` option of a shared store: write only when the key holds nothing (first writer wins). */
export interface IfAbsentOptions {
  ifAbsent?: boolean;
}

// SET NX with its index and feed entry, all or nothing: a second writer changes nothing, not even the feed.
const SET_IF_ABSENT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
for i = 3, #KEYS do redis.call('SADD', KEYS[i], ARGV[2]) end
if KEYS[2] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'k', ARGV[2], 'v', ARGV[1]) end
return 1`;

const CLEAR_CHUNK = 500;

/**
 * An unstorage driver on Redis. Each write is one MULTI/EXEC: the record, the child sets of its parents
 * (what `getKeys` reads, instead of KEYS or a full SCAN) and, on the data store, its change feed entry.
 * Raw values are kept as bytes (`getBuffer`), so media need no base64. An outage surfaces as
 * `StorageUnavailableError`.
 */
export const redisDriver = defineDriver((options: RedisDriverOptions) => {
  const { client, layout } = options;

  const setText = (key: string, text: string | Buffer, opts?: IfAbsentOptions) =>
    redisCall(async () => {
      if (opts?.ifAbsent) {
        const keys = [layout.record(key), layout.feed ?? "", ...parentsOf(key).map(layout.children)];
        await client.eval(SET_IF_ABSENT, keys.length, ...keys, text, key, layout.feedMaxLength);
        return;
      }
      const multi = client.multi();
      queueSet(multi, layout, key, text);
      await execOrThrow(multi);
    });

  const listKeys = (base: string) =>
    redisCall(async () => {
      // unstorage passes "a:b:" (whole segments); a raw prefix ending mid-segment reads its parent's set.
      const trimmed = base.endsWith(":") ? base.slice(0, -1) : base;
      if (trimmed === "" || base.endsWith(":")) return client.smembers(layout.children(trimmed));
      const cut = trimmed.lastIndexOf(":");
      const parent = cut < 0 ? "" : trimmed.slice(0, cut);
      return (await client.smembers(layout.children(parent))).filter((key) => key.startsWith(trimmed));
    });

  return {
    name: "lp-redis",
    options,
    hasItem: (key: string) => redisCall(async () => (await client.exists(layout.record(checkKey(key)))) === 1),
    getItem: (key: string) => redisCall(() => client.get(layout.record(checkKey(key)))),
    getItemRaw: (key: string) => redisCall(() => client.getBuffer(layout.record(checkKey(key)))),
    setItem: (key: string, value: string, opts?: IfAbsentOptions) => setText(checkKey(key), value, opts),
    setItemRaw: (key: string, value: Uint8Array, opts?: IfAbsentOptions) =>
      setText(checkKey(key), Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength), opts),
    removeItem: (key: string) =>
      redisCall(async () => {
        const multi = client.multi();
        queueRemove(multi, layout, checkKey(key));
        await execOrThrow(multi);
      }),
    getKeys: (base: string) => listKeys(base ?? ""),
    async clear(base: string) {
      const keys = await listKeys(base ?? "");
      for (let i = 0; i < keys.length; i += CLEAR_CHUNK) {
        await redisCall(async () => {
          const multi = client.multi();
          for (const key of keys.slice(i, i + CLEAR_CHUNK)) queueRemove(multi, layout, key);
          await execOrThrow(multi);
        });
      }
    },
    // The client belongs to the stores, which close it.
    dispose() {},
  };
});
