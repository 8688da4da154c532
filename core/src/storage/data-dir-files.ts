import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Files of the data dir are readable by their owner only (they hold secrets and personal data). */
export const FILE_MODE = 0o600;
/** Folders of the data dir, likewise. */
export const DIR_MODE = 0o700;

/** The text of `path`, or null when there is no such file. */
export function readTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * Replaces `path` with `text` so that a crash leaves the old file or the new one, never a torn one: written
 * to a temporary file beside it (owner-only), flushed, renamed over it, and the folder flushed so the
 * rename itself survives a power loss. For the small files next to the database (`format.json`).
 */
export function writeFileDurably(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, "w", FILE_MODE);
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  syncFolder(dirname(path));
}

/** Flushes a folder's entries (a rename or a new file in it) to disk. */
export function syncFolder(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
