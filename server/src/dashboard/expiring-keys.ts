/**
 * Short-lived values under opaque keys, each with its own time to live: the dashboard's login tokens and
 * sessions. {@link createExpiringKeys} keeps them in this process's memory (a restart logs everyone out);
 * processes sharing PostgreSQL keep them in its `dashboard_keys` table (`database-keys.ts`), hence
 * asynchronous. `take` reads and removes in one step, so a single-use value is used once.
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

/** {@link ExpiringKeys} in memory, at most `max` keys: past it, the oldest written go first. */
export function createExpiringKeys(now: () => number = Date.now, max = 128): ExpiringKeys {
  // Insertion order is write order (a put deletes first), which is what the cap drops by.
  const entries = new Map<string, { value: string; expires: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > now()) return entry;
    entries.delete(key);
    return undefined;
  };
  return {
    async put(key, value, ttlMs) {
      entries.delete(key);
      entries.set(key, { value, expires: now() + ttlMs });
      const at = now();
      for (const [k, e] of entries) if (e.expires <= at) entries.delete(k);
      for (const k of entries.keys()) {
        if (entries.size <= max) break;
        entries.delete(k);
      }
    },
    get: async (key) => live(key)?.value ?? null,
    async take(key) {
      const entry = live(key);
      entries.delete(key);
      return entry?.value ?? null;
    },
    async touch(key, ttlMs) {
      const entry = live(key);
      if (entry) entry.expires = now() + ttlMs;
    },
    remove: async (key) => void entries.delete(key),
    close: async () => entries.clear(),
  };
}
