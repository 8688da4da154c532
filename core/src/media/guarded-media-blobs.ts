import type { Storage } from "unstorage";
import { StorageFaultError, toStorageFault, type StorageHealth } from "../storage/storage-faults.js";

/** The Storage methods that write. */
const WRITES = ["setItem", "setItemRaw", "setItems", "removeItem", "clear"] as const;

/**
 * The media blobs with their writes' storage faults named: a file write the disk refuses (`ENOSPC`,
 * `EDQUOT`, `EROFS`, `EACCES`, `EPERM`) throws a {@link StorageFaultError} (507 or 503 with
 * `details.reason`), counted by `health`. The fault ends with the next committed write of the database or
 * its probe, which share the data dir's disk: a blob written proves nothing of the database's room (in
 * memory it never fails). Blobs kept in the database (PostgreSQL) are guarded there already: their faults
 * pass through uncounted here. Reads are untouched.
 */
export function guardMediaBlobs(blobs: Storage, health: StorageHealth): Storage {
  const guarded = Object.create(blobs) as Storage;
  const refused = (error: unknown): never => {
    if (error instanceof StorageFaultError) throw error;
    const fault = toStorageFault(error);
    if (!fault) throw error;
    health.refused(fault);
    throw fault;
  };
  for (const name of WRITES) {
    const original = (blobs[name] as (...args: unknown[]) => Promise<unknown>).bind(blobs);
    (guarded as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => original(...args).catch(refused);
  }
  return guarded;
}
