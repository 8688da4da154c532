import type { Redis } from "ioredis";
import { createRedisClient, redisCall } from "../storage/redis-client.js";

/**
 * Short-lived values under opaque keys, each with its own time to live: one process's memory, or one Redis
 * that every process of a cluster shares (the dashboard's login tokens and sessions). `take` reads and
 * deletes in one step, so a single-use value is used once even when two processes race for it.
 */
export interface ExpiringKeys {
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Reads and removes the value in one step: of several callers at once, one gets it. */
  take(key: string): Promise<string | null>;
  /** Gives an existing key a new time to live (sliding expiry); nothing happens to a missing one. */
  touch(key: string, ttlMs: number): Promise<void>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

/** {@link ExpiringKeys} in this process's memory, at most `max` keys (the oldest go first). */
export function createLocalExpiringKeys(now: () => number = Date.now, max = 128): ExpiringKeys {
  const map = new Map<string, { value: string; expires: number }>();
  const live = (key: string) => {
    const entry = map.get(key);
    if (entry && entry.expires <= now()) map.delete(key);
    return entry && entry.expires > now() ? entry : undefined;
  };
  return {
    async put(key, value, ttlMs) {
      map.delete(key);
      map.set(key, { value, expires: now() + ttlMs });
      for (const [k, e] of map) if (e.expires <= now()) map.delete(k);
      while (map.size > max) map.delete(map.keys().next().value!);
    },
    get: async (key) => live(key)?.value ?? null,
    async take(key) {
      const entry = live(key);
      map.delete(key);
      return entry?.value ?? null;
    },
    async touch(key, ttlMs) {
      const entry = live(key);
      if (entry) entry.expires = now() + ttlMs;
    },
    remove: async (key) => void map.delete(key),
    close: async () => map.clear(),
  };
}

/**
 * {@link ExpiringKeys} in Redis under `<prefix><namespace>`: SET with PX, GETDEL, PEXPIRE, so Redis drops each
 * key when its time is up and nothing accumulates. The connection opens at the first use; Redis unreachable
 * is a 503 (`StorageUnavailableError`), like every other Redis outage.
 */
export function createRedisExpiringKeys(redis: { url: string; prefix: string }, namespace: string, log?: (line: string) => void): ExpiringKeys {
  let client: Redis | undefined;
  const connect = () => (client ??= createRedisClient(redis.url, { name: namespace, log }));
  const k = (key: string) => `${redis.prefix}${namespace}:${key}`;
  return {
    put: (key, value, ttlMs) => redisCall(async () => void (await connect().set(k(key), value, "PX", Math.max(1, Math.round(ttlMs))))),
    get: (key) => redisCall(() => connect().get(k(key))),
    take: (key) => redisCall(() => connect().getdel(k(key))),
    touch: (key, ttlMs) => redisCall(async () => void (await connect().pexpire(k(key), Math.max(1, Math.round(ttlMs))))),
    remove: (key) => redisCall(async () => void (await connect().del(k(key)))),
    async close() {
      await client?.quit().catch(() => client?.disconnect());
      client = undefined;
    },
  };
}
