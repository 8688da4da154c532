import { LpError, type RateWindows } from "@lp/core";

/** At most `count` requests per `windowMs` from one client address. */
export interface RateLimit {
  count: number;
  windowMs: number;
}

/** The default for checkout posts when the server is public: 30 a minute per address. */
export const PUBLIC_CHECKOUT_RATE_LIMIT: RateLimit = { count: 30, windowMs: 60_000 };

/** Counts per client address and refuses past the limit. */
export interface RateLimiter {
  /** Counts one request from `address`; rejects with 429 `rate_limited` and `retry_after_seconds` past the limit. */
  hit(address: string): Promise<void>;
}

/**
 * A fixed-window limiter over the core's rate windows (`core.rateWindows`): in memory for one process, in
 * the database for processes that share PostgreSQL, so the limit is the service's. `name` keeps limits apart.
 */
export function createRateLimiter(limit: RateLimit, windows: RateWindows, name = "checkout"): RateLimiter {
  return {
    async hit(address) {
      const { count, resetInMs } = await windows.hit(`${name}:${address}`, limit.windowMs);
      if (count > limit.count) {
        const retryAfter = Math.max(1, Math.ceil(resetInMs / 1000));
        throw new LpError("rate_limited", `Too many requests from this address: at most ${limit.count} per ${limit.windowMs / 1000} s. Retry in ${retryAfter} s.`, {
          limit: limit.count,
          window_seconds: limit.windowMs / 1000,
          retry_after_seconds: retryAfter,
        });
      }
    },
  };
}
