import type { Storage } from "unstorage";
import { CollectionIndex, type IndexEntry } from "./collection-index.js";

/** Records of a made-up collection for the index tests (SQLite and Redis): sortable, and removable by `gone`. */
export interface Item {
  id: string;
  created_at: string;
  title: string;
  gone?: boolean;
}

/** The collection's prefix. */
export const PREFIX = "acct:a:items";

/** The index entry of an item (none once `gone`). */
export const toEntry = (r: Item) => (r.gone ? null : { id: r.id, created_at: r.created_at, title: r.title });

/** Item number `i`: ids and creation times both sort by `i`. */
export const item = (i: number, title = `item ${i}`): Item => ({
  id: `i${String(i).padStart(4, "0")}`,
  created_at: `2026-01-01T00:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z`,
  title,
});

/** The storage key of item `i`. */
export const keyOf = (i: number) => `${PREFIX}:${item(i).id}`;

/** `storage` with its record reads counted: a registry restored from its snapshot reads none. */
export function countingReads(storage: Storage): { data: Storage; reads: () => number } {
  let reads = 0;
  const data = new Proxy(storage, {
    get(target, name, receiver) {
      if (name === "getItem") return (key: string) => ((reads += 1), target.getItem(key));
      return Reflect.get(target, name, receiver) as unknown;
    },
  }) as Storage;
  return { data, reads: () => reads };
}

/**
 * The index made the plain way: every key `getKeys` lists at the prefix's depth, each record read and
 * upserted. What {@link buildIndex} must give, however it lists and reads.
 */
export async function referenceIndex(storage: Storage, prefix: string): Promise<IndexEntry[]> {
  const depth = prefix.split(":").length + 1;
  const index = new CollectionIndex<IndexEntry>();
  for (const key of (await storage.getKeys(prefix)).filter((k) => k.split(":").length === depth)) {
    const entry = toEntry((await storage.getItem(key)) as Item);
    if (entry) index.upsert(entry);
  }
  return index.entriesByCreated();
}

/** Items 1..count under {@link PREFIX} (every seventh gone), and records of neighbouring collections. */
export async function seedItems(storage: Storage, count: number): Promise<void> {
  for (let i = 1; i <= count; i++) await storage.setItem(keyOf(i), i % 7 === 0 ? { ...item(i), gone: true } : item(i));
  await storage.setItem(`${PREFIX}x:other`, item(count + 1));
  await storage.setItem(`acct:b:items:${item(count + 2).id}`, item(count + 2));
}
