import type { Redis } from "ioredis";
import { defineDriver } from "unstorage";
import { redisCall } from "./redis-client.js";
import { checkKey } from "./keys.js";
import { keysUnder, writeOps, type RedisLayout } from "./redis-keys.js";

/** Options of {@link redisDriver}. */
export interface RedisDriverOptions {
  client: Redis;
  layout: RedisLayout;
}

/** `setItem` option of a shared store: write only when the key holds nothing (first writer wins). */
export interface IfAbsentOptions {
  ifAbsent?: boolean;
}

const CLEAR_CHUNK = 500;
/** Members asked for per SSCAN call when listing one collection in chunks. */
const SCAN_COUNT = 1000;

/**
 * An unstorage driver on Redis. Each write is one atomic script run (redis-keys.ts): the record, the key sets
 * `getKeys` walks (instead of KEYS or a scan) and, on the data store, its change feed entry. Raw values are
 * kept as bytes (`getBuffer`), so media need no base64. An outage surfaces as `StorageUnavailableError`.
 */
export const redisDriver = defineDriver((options: RedisDriverOptions) => {
  const { client, layout } = options;

  const setValue = (key: string, value: string | Buffer, opts?: IfAbsentOptions) =>
    redisCall(async () => void (await writeOps(client, layout, [{ op: opts?.ifAbsent ? "setnx" : "set", key: checkKey(key), value }])));

  const listKeys = (base: string) =>
    redisCall(async () => {
      // unstorage passes "a:b:" (whole segments); a raw prefix ending mid-segment lists its parent and filters.
      if (base === "" || base.endsWith(":")) return keysUnder(client, layout, base.replace(/:$/, ""));
      const cut = base.lastIndexOf(":");
      const parent = cut < 0 ? "" : base.slice(0, cut);
      return (await keysUnder(client, layout, parent)).filter((key) => key.startsWith(base));
    });

  return {
    name: "lp-redis",
    options,
    hasItem: (key: string) => redisCall(async () => (await client.exists(layout.records + checkKey(key))) === 1),
    getItem: (key: string) => redisCall(() => client.get(layout.records + checkKey(key))),
    getItemRaw: (key: string) => redisCall(() => client.getBuffer(layout.records + checkKey(key))),
    setItem: (key: string, value: string, opts?: IfAbsentOptions) => setValue(key, value, opts),
    setItemRaw: (key: string, value: Uint8Array, opts?: IfAbsentOptions) =>
      setValue(key, Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength), opts),
    removeItem: (key: string) => redisCall(async () => void (await writeOps(client, layout, [{ op: "remove", key: checkKey(key) }]))),
    getKeys: (base: string) => listKeys(base ?? ""),
    /**
     * The keys directly under `prefix` (its leaf set), a SSCAN page at a time (`key-chunks.ts`): 100,000 keys
     * never arrive as one reply parsed in one turn. SSCAN may repeat a member: each is handed over once.
     */
    async *directKeyChunks(prefix: string): AsyncGenerator<string[]> {
      const seen = new Set<string>();
      let cursor = "0";
      do {
        const [next, members] = await redisCall(() => client.sscan(layout.leaves + prefix, cursor, "COUNT", SCAN_COUNT));
        const fresh = members.filter((key) => !seen.has(key) && (seen.add(key), true));
        if (fresh.length > 0) yield fresh;
        cursor = next;
      } while (cursor !== "0");
    },
    async clear(base: string) {
      const keys = await listKeys(base ?? "");
      for (let i = 0; i < keys.length; i += CLEAR_CHUNK) {
        const chunk = keys.slice(i, i + CLEAR_CHUNK).map((key) => ({ op: "remove" as const, key }));
        await redisCall(() => writeOps(client, layout, chunk));
      }
    },
    // The client belongs to the stores, which close it.
    dispose() {},
  };
});
