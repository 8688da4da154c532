import type { Storage } from "unstorage";
import { skipUnreadable } from "../storage/record-check.js";
import type { CollectionIndex, IndexEntry } from "./collection-index.js";
import { pacer, yieldToLoop, type IndexSnapshotStore, type OpenedSnapshot, type RecordScan } from "./index-snapshot.js";

type ToEntry = (record: unknown) => IndexEntry | null;

/** Records read at once (as a build reads them). */
const READ_BATCH = 64;
/** Records of a collection read ahead from the key journal at most (more is a case for the check to weigh first). */
const PREFETCH_MAX = 4096;

/** What a snapshot whose folder changed since needs laid over it, from the records as they are now. */
export interface StaleCheck {
  /** By id, the entry of each record changed since the snapshot (null: no entry). */
  latest: Map<string, IndexEntry | null>;
  /** The ids of the records that exist now, when the files were checked (the key journal names removals instead). */
  present?: ReadonlySet<string>;
  /** Where the changes came from: the key journal, or a check of every file. */
  from: RecordScan["from"];
}

/**
 * The records of `prefix` changed since `snapshot` was taken, read again, and (from a check of the files)
 * the names of those that exist, when its store can tell (fs: {@link IndexSnapshotStore.scan}, from the key
 * journal when it covers the snapshot); null when it cannot (no basis, the folder swapped) or when most
 * records changed, where reading them all is as quick.
 */
export async function checkStale(
  store: IndexSnapshotStore,
  storage: Storage,
  prefix: string,
  toEntry: ToEntry,
  snapshot: OpenedSnapshot,
  ahead?: Promise<Map<string, IndexEntry | null>> | null,
): Promise<StaleCheck | null> {
  if (!store.scan || snapshot.basis === undefined) return null;
  const scan: RecordScan | null = await store.scan(prefix, snapshot.basis, snapshot.token);
  if (!scan || scan.changed.length * 2 > Math.max(scan.present?.size ?? 0, snapshot.count)) return null;
  // Read while the snapshot was: read after this load began, as every read of the check is (a write from
  // then on reaches the index through the registry's update). Names journaled since are read now.
  const early = scan.from === "journal" && ahead ? await ahead : new Map<string, IndexEntry | null>();
  const latest = await readEntries(storage, prefix, toEntry, scan.changed.filter((name) => !early.has(name)));
  for (const name of scan.changed) if (early.has(name)) latest.set(name, early.get(name)!);
  return { latest, present: scan.present, from: scan.from };
}

/**
 * The records the store's key journal names under `prefix`, read while the snapshot is (null when it names
 * none or too many): if the journal turns out to cover the snapshot, the check has them already.
 */
export function readAhead(store: IndexSnapshotStore, storage: Storage, prefix: string, toEntry: ToEntry): Promise<Map<string, IndexEntry | null>> | null {
  const names = store.journaled?.(prefix);
  if (!names || names.length === 0 || names.length > PREFETCH_MAX) return null;
  // Awaited by the check when it is used; a failure then means the check reads them itself.
  return readEntries(storage, prefix, toEntry, names).catch(() => new Map());
}

/** By name, the entry of each record `names` lists under `prefix` (null: unreadable, gone, or no entry). */
async function readEntries(storage: Storage, prefix: string, toEntry: ToEntry, names: readonly string[]): Promise<Map<string, IndexEntry | null>> {
  const latest = new Map<string, IndexEntry | null>();
  const pace = pacer();
  for (let i = 0; i < names.length; i += READ_BATCH) {
    const batch = names.slice(i, i + READ_BATCH);
    const reads = batch.map((name) => {
      const read = skipUnreadable(storage.getItem(`${prefix}:${name}`));
      // Handled by Promise.all below; not unhandled while the loop turns meanwhile.
      read.catch(() => {});
      return read;
    });
    const records = await Promise.all(reads);
    for (let k = 0; k < batch.length; k++) latest.set(batch[k]!, records[k] ? toEntry(records[k]) : null);
    await pace();
  }
  return latest;
}

/**
 * Reads the records that exist, did not change since the snapshot, and are not in the index restored from
 * it (a record with no entry then, one that could not be read, or one the snapshot missed), and adds the
 * entries they have: the index is then exactly what a build from the records gives.
 */
export async function addUnlisted(storage: Storage, prefix: string, toEntry: ToEntry, index: CollectionIndex<IndexEntry>, check: StaleCheck): Promise<void> {
  // From the key journal: every record not named in it is as the snapshot found it.
  if (!check.present) return;
  const missing: string[] = [];
  let n = 0;
  for (const name of check.present) {
    if (!check.latest.has(name) && index.get(name) === undefined) missing.push(name);
    if (++n % 4096 === 0) await yieldToLoop();
  }
  for (const [, entry] of await readEntries(storage, prefix, toEntry, missing)) if (entry) index.upsert(entry);
}
