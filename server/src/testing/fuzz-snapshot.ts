import type { Core } from "@lp/core";
// The table catalog is not exported from @lp/core: reached by path, as tests reach the core's internals.
import { TABLE_ORDER, tableSpec } from "../../../core/src/db/table-catalog.js";
import { readTableRows } from "../../../core/src/db/table-copy.js";

/**
 * What is stored, one entry per row of every table (`table:[primary key]`, the row's columns as JSON) and
 * per media file (`media:path`). Comparing two says which rows and files a request added, removed or changed.
 */
export type StoreSnapshot = Map<string, string>;

/** What a snapshot reads: the core's database and its media. */
export type SnapshotSource = Pick<Core, "database" | "media">;

/**
 * Takes a snapshot of every table and of the media paths. The lists' in-memory state and the id sources
 * are not storage and are not part of it: a rejected request may warm a cache, but it must not write a row.
 */
export async function takeSnapshot(core: SnapshotSource): Promise<StoreSnapshot> {
  const out: StoreSnapshot = new Map();
  for (const table of TABLE_ORDER) {
    const key = tableSpec(table).key as readonly string[];
    for (const row of await readTableRows(core.database.db, table)) {
      // The key's values as JSON: a value holding the separator cannot make two keys one.
      out.set(`${table}:${JSON.stringify(key.map((column) => row[column]))}`, JSON.stringify(row));
    }
  }
  for (const path of await core.media.paths()) out.set(`media:${path}`, "");
  return out;
}

/** How many rows and media files are stored in all: what tells a long run that its store has grown. */
export async function countStored(core: SnapshotSource): Promise<number> {
  let count = (await core.media.paths()).length;
  for (const table of TABLE_ORDER) {
    const row = await core.database.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    count += Number(row.n);
  }
  return count;
}

/**
 * The entries that differ between two snapshots: `+key` added, `-key` removed, `~key` changed. Keys for
 * which `ignore` answers true are left out.
 */
export function diffSnapshots(before: StoreSnapshot, after: StoreSnapshot, ignore: (key: string) => boolean = () => false): string[] {
  const out: string[] = [];
  for (const [key, value] of after) {
    if (ignore(key)) continue;
    if (!before.has(key)) out.push(`+${key}`);
    else if (before.get(key) !== value) out.push(`~${key}`);
  }
  for (const key of before.keys()) if (!after.has(key) && !ignore(key)) out.push(`-${key}`);
  return out.sort();
}

/** Rows of stored answers to Idempotency-Keys, which a replayable 404 legitimately writes. */
export const isIdempotencyKey = (key: string) => key.startsWith("idempotency_keys:");
