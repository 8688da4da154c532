import { join } from "node:path";
import { createStorage, normalizeBaseKey, type Driver, type Storage } from "unstorage";
import memoryDriver from "unstorage/drivers/memory";
import { fsDurableDriver } from "./fs-durable-driver.js";

/** The storage kinds `lp serve --storage` accepts. */
export type StorageKind = "memory" | "fs";

/** Records and media, kept apart so that media bytes never pass through JSON. */
export interface Stores {
  kind: StorageKind;
  data: Storage;
  media: Storage;
  dispose(): Promise<void>;
}

/**
 * A Storage over one driver. unstorage 1.17's `clear(prefix)` only clears mounts that live under the
 * prefix, so with a single root mount it silently does nothing; here it removes the prefix's keys.
 */
export function toStorage(driver: Driver): Storage {
  const storage = createStorage({ driver });
  const clearAll = storage.clear.bind(storage);
  storage.clear = async (base?: string, opts?: Record<string, unknown>) => {
    if (!base || !normalizeBaseKey(base)) return clearAll(base, opts);
    const keys = await storage.getKeys(base);
    await Promise.all(keys.map((key) => storage.removeItem(key)));
  };
  return storage;
}

/** Opens the stores of one kind. `dataDir` is required for `fs`. */
export function createStores(kind: StorageKind, dataDir?: string): Stores {
  if (kind === "fs" && !dataDir) throw new Error("fs storage needs a data directory");
  const make = (sub: string): Storage =>
    toStorage(kind === "fs" ? fsDurableDriver({ base: join(dataDir!, sub) }) : memoryDriver());
  const data = make("data");
  const media = make("media");
  return {
    kind,
    data,
    media,
    async dispose() {
      await Promise.all([data.dispose(), media.dispose()]);
    },
  };
}
