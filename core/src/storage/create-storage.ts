import { join } from "node:path";
import { createStorage, type Storage } from "unstorage";
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

/** Opens the stores of one kind. `dataDir` is required for `fs`. */
export function createStores(kind: StorageKind, dataDir?: string): Stores {
  if (kind === "fs" && !dataDir) throw new Error("fs storage needs a data directory");
  const make = (sub: string): Storage =>
    kind === "fs"
      ? createStorage({ driver: fsDurableDriver({ base: join(dataDir!, sub) }) })
      : createStorage({ driver: memoryDriver() });
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
