import { execFileSync } from "node:child_process";
import { closeSync, fdatasync, fsync, fsyncSync, fdatasyncSync, openSync } from "node:fs";
import { promisify } from "node:util";
import { syncfs } from "./fs-syncfs.js";
const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

/** Whether coreutils' `sync -f` (syncfs(2)) answered here; false once it is found missing. */
let syncfsWorks = true;

/**
 * Makes everything written under `root` durable: the files the log's checkpoint applied and the folder
 * entries their renames and removals changed. One `sync -f` (coreutils' syncfs(2) of the file system that
 * holds `root`), run off the event loop by a shell kept for it ({@link syncfs}): one flush of the whole file system costs far
 * less than an fdatasync per file (Node has no syncfs binding). Where `sync -f` is missing, each path of
 * `dirty` (files and folders) is flushed on its own instead. Rejects when the flush reports an error, so
 * the log segment that holds those writes is kept.
 */
export async function makeDurable(root: string, dirty: ReadonlySet<string>): Promise<void> {
  if (syncfsWorks) {
    try {
      await syncfs(root);
      return;
    } catch (error) {
      if (!isMissingTool(error)) throw error;
      syncfsWorks = false;
    }
  }
  for (const path of dirty) {
    const fd = openOrNull(path);
    if (fd === null) continue;
    try {
      await fdatasyncAsync(fd).catch((error: NodeJS.ErrnoException) => (error.code === "EINVAL" ? fsyncAsync(fd) : Promise.reject(error)));
    } finally {
      closeSync(fd);
    }
  }
}

/** {@link makeDurable} for the start-up replay, which runs before anything else may use the folder. */
export function makeDurableSync(root: string, dirty: ReadonlySet<string>): void {
  if (syncfsWorks) {
    try {
      execFileSync("sync", ["-f", root], { stdio: "ignore" });
      return;
    } catch (error) {
      if (!isMissingTool(error)) throw error;
      syncfsWorks = false;
    }
  }
  for (const path of dirty) {
    const fd = openOrNull(path);
    if (fd === null) continue;
    try {
      try {
        fdatasyncSync(fd);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EINVAL") throw error;
        fsyncSync(fd);
      }
    } finally {
      closeSync(fd);
    }
  }
}

/** Flushes a folder's entries (a file created, renamed or removed in it). */
export async function fsyncDir(path: string): Promise<void> {
  const fd = openOrNull(path);
  if (fd === null) return;
  try {
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}

/** A read-only descriptor of `path`, or null once it is gone (removed or replaced since it was written). */
function openOrNull(path: string): number | null {
  try {
    return openSync(path, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

/** `sync` missing, or too old to know `-f`: not a flush that failed. */
function isMissingTool(error: unknown): boolean {
  const e = error as NodeJS.ErrnoException & { status?: number; stderr?: unknown };
  // Not found by the shell (127), or by the system.
  if (e.code === "ENOENT" || e.status === 127) return true;
  const stderr = String(e.stderr ?? "");
  return /invalid option|unrecognized option|usage/i.test(stderr);
}
