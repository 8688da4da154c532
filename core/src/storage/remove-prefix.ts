import type { Storage } from "unstorage";

/**
 * Removes every key under `prefix`. Some unstorage drivers (memory among them) ignore the base given to
 * `clear()` and wipe everything, so prefixed removal is always done key by key.
 */
export async function removePrefix(storage: Storage, prefix: string): Promise<void> {
  const base = prefix.split(/[:/]/).filter(Boolean).join(":");
  if (!base) throw new Error("removePrefix needs a non-empty prefix");
  const keys = await storage.getKeys(base);
  await Promise.all(keys.filter((k) => k === base || k.startsWith(`${base}:`)).map((k) => storage.removeItem(k)));
}
