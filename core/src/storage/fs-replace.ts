import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { fsDurableDriver } from "./fs-durable-driver.js";
import { FILE_MODE } from "./fs-io.js";
import { toStorage } from "./create-storage.js";

/** The folders of an fs data dir that an import replaces together. */
const FOLDERS = ["data", "media"] as const;
/** Written once the new folders are complete: from then on the swap is finished, by this process or the next start. */
const COMMIT = "import.commit";

const fsyncDir = (dir: string) => {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/**
 * Renames `X.next` over `X` for the data and media folders (the old ones go to `X.old`), then drops the
 * commit mark and the old folders. Every step is safe to repeat: a kill anywhere leaves a state the next
 * call finishes, and readers only ever see the old folders or the new ones once the mark is written.
 */
function rollForward(dataDir: string): void {
  for (const folder of FOLDERS) {
    const [current, next, old] = [join(dataDir, folder), join(dataDir, `${folder}.next`), join(dataDir, `${folder}.old`)];
    if (!existsSync(next)) continue;
    if (existsSync(current)) {
      rmSync(old, { recursive: true, force: true });
      renameSync(current, old);
    }
    renameSync(next, current);
  }
  fsyncDir(dataDir);
  unlinkSync(join(dataDir, COMMIT));
  fsyncDir(dataDir);
  for (const folder of FOLDERS) rmSync(join(dataDir, `${folder}.old`), { recursive: true, force: true });
}

/**
 * Settles an import a kill cut short, before the stores open: with the commit mark the swap is finished
 * (the new data), without it the folders written aside are dropped (the old data, untouched).
 */
export function settleFsReplace(dataDir: string): void {
  if (existsSync(join(dataDir, COMMIT))) return rollForward(dataDir);
  for (const folder of FOLDERS) {
    rmSync(join(dataDir, `${folder}.next`), { recursive: true, force: true });
    rmSync(join(dataDir, `${folder}.old`), { recursive: true, force: true });
  }
}

/**
 * Replaces every record (but the `meta:` ones, which are carried over) and every media file of an fs data
 * dir: the new ones are written aside (`data.next`, `media.next`), each file durable (the records through
 * the `data.next` driver's log, which its dispose checkpoints, so the folder swapped in carries no log); a commit mark is
 * written; then the folders are swapped by renames. A kill before the mark leaves the old data, after it
 * the next start finishes the swap ({@link settleFsReplace}): never a mix.
 */
export async function replaceFsStores(dataDir: string, current: Storage, records: Record<string, unknown>, media: Record<string, string>): Promise<void> {
  settleFsReplace(dataDir);
  const data = toStorage(fsDurableDriver({ base: join(dataDir, "data.next") }));
  const files = toStorage(fsDurableDriver({ base: join(dataDir, "media.next"), log: false }));
  try {
    for (const key of await current.getKeys("meta")) if (key.startsWith("meta:")) await data.setItem(key, (await current.getItem(key)) as never);
    for (const [key, value] of Object.entries(records)) await data.setItem(key, value as never);
    for (const [key, value] of Object.entries(media)) await files.setItemRaw(key, Buffer.from(value, "base64"));
  } catch (error) {
    settleFsReplace(dataDir);
    throw error;
  } finally {
    await Promise.all([data.dispose(), files.dispose()]);
  }
  const mark = openSync(join(dataDir, COMMIT), "w", FILE_MODE);
  fsyncSync(mark);
  closeSync(mark);
  fsyncDir(dataDir);
  rollForward(dataDir);
}
