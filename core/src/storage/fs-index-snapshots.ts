import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { readFile, readdir, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import type { IndexSnapshotStore } from "../lists/index-snapshot.js";
import { DIR_MODE, writeFileAtomic } from "./fs-io.js";

/** The folder of a data dir that holds persisted list indexes (derived data: deleting it costs a rebuild). */
export const INDEX_DIR = "index";
const SEGMENT = /^[A-Za-z0-9_.-]+$/;
const SUFFIX = ".idx";
/**
 * A folder changed less than this long ago may change again within the same timestamp tick (Linux stamps
 * files from a coarse clock) without its token changing: a snapshot is only written at a token older
 * than that, or when nothing else can write (at close).
 */
const SETTLE_MS = 2000;

const fileOf = (prefix: string) => `${createHash("sha256").update(prefix).digest("hex").slice(0, 40)}${SUFFIX}`;

/**
 * Persisted list indexes of an fs data dir: one file per prefix in `<dataDir>/index/` (0600 in a 0700
 * folder, written like records: temporary file, fsync, rename). A snapshot's token is the record folder's
 * inode and modification time in nanoseconds: creating, replacing (rename over) or removing a record
 * changes it, whichever process or version made the change, so a snapshot is only trusted while the
 * folder is exactly as it was when the snapshot was taken.
 */
export function fsIndexSnapshots(dataDir: string): IndexSnapshotStore {
  const dir = join(dataDir, INDEX_DIR);
  let counter = 0;
  // Temporary files of a write a kill cut short are never snapshots. A data dir that cannot be written (a
  // read-only disk) still opens: snapshots are an optimisation.
  try {
    for (const name of readdirSync(dir)) if (name.endsWith(".tmp")) rmSync(join(dir, name), { force: true });
  } catch {
    // No folder yet, or not writable.
  }
  const recordsOf = (prefix: string) => {
    const parts = prefix.split(":");
    if (parts.some((p) => !SEGMENT.test(p) || p === "." || p === "..")) throw new Error(`Unsafe index prefix: ${JSON.stringify(prefix)}`);
    return join(dataDir, "data", ...parts);
  };
  return {
    async stamp(prefix) {
      try {
        const info = await stat(recordsOf(prefix), { bigint: true });
        const settled = Date.now() - Number(info.mtimeMs) > SETTLE_MS;
        return { token: `${info.ino}:${info.mtimeNs}`, settled };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") return { token: "absent", settled: true };
        throw error;
      }
    },
    async seal(prefix) {
      // A modification time in the past that no write made from now on can have: a write stamps the
      // folder with the current time, so the token is sure to change even within one coarse tick.
      const past = new Date(Date.now() - 2 * SETTLE_MS - Math.floor(Math.random() * 1000));
      await utimes(recordsOf(prefix), past, past);
    },
    async read(prefix) {
      try {
        return await readFile(join(dir, fileOf(prefix)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },
    async write(prefix, text) {
      const target = join(dir, fileOf(prefix));
      mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      await writeFileAtomic(target, `${target}.${process.pid}-${++counter}.tmp`, text, true);
    },
    async remove(prefix) {
      await rm(join(dir, fileOf(prefix)), { force: true });
    },
    async removeAll() {
      const names = await readdir(dir).catch(() => [] as string[]);
      await Promise.all(names.filter((name) => name.endsWith(SUFFIX)).map((name) => rm(join(dir, name), { force: true })));
    },
  };
}
