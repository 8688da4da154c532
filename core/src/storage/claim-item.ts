import type { Storage } from "unstorage";

/**
 * The record at `key`, or `make()` stored there when there is none (or `usable` refuses what is there).
 * Several processes starting at once on a shared store (Redis) agree: the write is a SET NX (`ifAbsent`,
 * which the Redis driver honours), and every process returns what is stored after its attempt, so the first
 * writer wins. memory and SQLite have one process per store, where checking first is enough.
 */
export async function claimItem<T>(storage: Storage, key: string, make: () => T, usable: (value: T) => boolean = () => true): Promise<T> {
  const existing = await storage.getItem<T>(key);
  if (existing !== null && existing !== undefined && usable(existing)) return existing;
  const fresh = make();
  // Something unusable is replaced outright; an empty key is claimed only if still empty.
  await storage.setItem(key, fresh as never, existing === null || existing === undefined ? { ifAbsent: true } : {});
  const stored = await storage.getItem<T>(key);
  return stored !== null && stored !== undefined && usable(stored) ? stored : fresh;
}

/** Writes `value` at `key` unless something is there already (first writer wins on a shared store). */
export async function setIfAbsent(storage: Storage, key: string, value: unknown): Promise<void> {
  if (await storage.hasItem(key)) return;
  await storage.setItem(key, value as never, { ifAbsent: true });
}
