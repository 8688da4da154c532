/**
 * Fixed windows of request counts per key (a client address), for rate limits: a window opens at its key's
 * first hit and lasts `windowMs`. {@link createLocalRateWindows} keeps them in the process's memory (memory
 * and SQLite storage: one process); processes sharing a PostgreSQL database count together in its
 * `rate_windows` table (`database-rate-windows.ts`, docs/scale-out.md).
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
