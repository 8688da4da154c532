import type { Redis } from "ioredis";
import { createRedisClient, redisCall } from "../storage/redis-client.js";

/**
 * Fixed windows of request counts per key (a client address), for rate limits: a window opens at its key's
 * first hit and lasts `windowMs`. In one process they live in memory; processes sharing a Redis count in
 * Redis, so a limit holds for the cluster, not per process.
 */
export interface RateWindows {
  /** Counts one hit of `key`: the count in its current window, and the milliseconds until that window ends. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }>;
  close?(): Promise<void>;
}

/** Keys remembered at most in memory; past it, ended windows go first, then the oldest. */
const MAX_TRACKED = 10_000;

/** Windows in this process's memory, timed by `now` (the core's clock, so tests move it). */
export function createLocalRateWindows(now: () => number): RateWindows {
  const windows = new Map<string, { start: number; windowMs: number; count: number }>();
  const evict = (at: number) => {
    for (const [key, w] of windows) if (at - w.start >= w.windowMs) windows.delete(key);
    // Still nearly full: the oldest tenth goes (Map keeps insertion order), so the scan above runs once per
    // thousand new keys, not once per hit.
    for (const key of windows.keys()) {
      if (windows.size < MAX_TRACKED * 0.9) break;
      windows.delete(key);
    }
  };
  return {
    async hit(key, windowMs) {
      const at = now();
      let w = windows.get(key);
      if (!w || at - w.start >= w.windowMs) {
        windows.delete(key);
        if (windows.size >= MAX_TRACKED) evict(at);
        w = { start: at, windowMs, count: 0 };
        windows.set(key, w);
      }
      w.count++;
      return { count: w.count, resetInMs: w.start + w.windowMs - at };
    },
  };
}

// One round trip: the count, a window that expires `windowMs` after its first hit, and what is left of it.
const HIT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

/**
 * Windows in Redis under `prefix` (`<prefix>rate:<key>`), timed by Redis's clock: every process of a
 * cluster counts into the same window. Each key expires with its window, so nothing accumulates. The
 * connection opens at the first hit; Redis unreachable is a 503, like every other Redis outage.
 */
export function createRedisRateWindows(redis: { url: string; prefix: string }, log?: (line: string) => void): RateWindows {
  let client: Redis | undefined;
  const connect = () => (client ??= createRedisClient(redis.url, { name: "rate limits", log }));
  return {
    hit(key, windowMs) {
      return redisCall(async () => {
        const [count, ttl] = (await connect().eval(HIT, 1, `${redis.prefix}rate:${key}`, String(windowMs))) as [number, number];
        return { count, resetInMs: Math.max(0, ttl) };
      });
    },
    async close() {
      await client?.quit().catch(() => client?.disconnect());
      client = undefined;
    },
  };
}
