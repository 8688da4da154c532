import type { IdSource } from "../deps.js";
import { claimItem } from "./claim-item.js";
import type { Stores } from "./create-storage.js";
import { StorageFaultError } from "./storage-faults.js";

/**
 * A secret stored at `key` so what it signs survives restarts (cursors, builder links). A store that refuses
 * the first write (full, read-only) gets one kept in memory: lists work, with what it signs good until the
 * next restart. `what` names the secret in that log line.
 */
export async function loadStoredSecret(stores: Stores, key: string, ids: IdSource, log = (line: string) => console.error(line), what = "cursor key"): Promise<Buffer> {
  // First writer wins, so every process of a cluster signs with the same secret.
  const make = () => ({ value: ids.bytes(32).toString("base64") });
  try {
    const stored = await claimItem<{ value?: string }>(stores.data, key, make, (s) => !!s?.value);
    return Buffer.from(stored.value!, "base64");
  } catch (error) {
    // A full or read-only store at first start: lists still work, with cursors good until the next restart.
    if (!(error instanceof StorageFaultError)) throw error;
    log(`storage: could not store the ${what} (${error.reason}); what it signs now ends with this process`);
    return Buffer.from(make().value, "base64");
  }
}
