import { LpError } from "@lp/core";

/** At most `count` requests per `windowMs` from one client address. */
export interface RateLimit {
  count: number;
  windowMs: number;
}

/** The default for checkout posts when the server is public: 30 a minute per address. */
export const PUBLIC_CHECKOUT_RATE_LIMIT: RateLimit = { count: 30, windowMs: 60_000 };

/** Addresses remembered at most; past it, expired windows go first, then the oldest. */
const MAX_TRACKED = 10_000;

/** A fixed-window counter per client address, with bounded memory. */
export interface RateLimiter {
  /** Counts one request from `address`; throws 429 `rate_limited` with `retry_after_seconds` past the limit. */
  hit(address: string): void;
}

/** Creates a limiter reading time from `now` (the core's clock, so tests control it). */
export function createRateLimiter(limit: RateLimit, now: () => number): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  const evict = (at: number) => {
    for (const [key, w] of windows) if (at - w.start >= limit.windowMs) windows.delete(key);
    // Still nearly full: the oldest tenth goes (Map keeps insertion order), so the scan above runs once
    // per thousand new addresses, not once per request.
    for (const key of windows.keys()) {
      if (windows.size < MAX_TRACKED * 0.9) break;
      windows.delete(key);
    }
  };
  return {
    hit(address) {
      const at = now();
      let w = windows.get(address);
      if (!w || at - w.start >= limit.windowMs) {
        windows.delete(address);
        if (windows.size >= MAX_TRACKED) evict(at);
        w = { start: at, count: 0 };
        windows.set(address, w);
      }
      w.count++;
      if (w.count > limit.count) {
        const retryAfter = Math.max(1, Math.ceil((w.start + limit.windowMs - at) / 1000));
        throw new LpError("rate_limited", `Too many requests from this address: at most ${limit.count} per ${limit.windowMs / 1000} s. Retry in ${retryAfter} s.`, {
          limit: limit.count,
          window_seconds: limit.windowMs / 1000,
          retry_after_seconds: retryAfter,
        });
      }
    },
  };
}
