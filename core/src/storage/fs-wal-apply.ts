import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { rm, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { DIR_MODE, FILE_MODE } from "./fs-io.js";
import { renameInto } from "./fs-group-write.js";
import { decodeFrames, type OpKey, type WalOp } from "./fs-wal-frames.js";
import { makeDurableSync } from "./fs-wal-durable.js";

/** Where the ops of the log land: the driver's folder, its key-to-path mapping and temporary names. */
export interface ApplyContext {
  base: string;
  toPath: (key: string) => string;
  tmpName: () => string;
  /** Entries of `base` that are the driver's own (`.tmp`, `.wal`), never records: a clear of all keeps them. */
  hidden: readonly string[];
}

/**
 * Applies one op to the record files: a new content goes to a temporary file renamed over the record (so
 * a reader sees the old text or the new one), not flushed (the log holds it durably until a checkpoint).
 */
export async function applyOp(op: WalOp, ctx: ApplyContext): Promise<void> {
  if (op.kind === "text" || op.kind === "bytes") return writeThroughPool(ctx.toPath(op.key), ctx.tmpName(), op.value);
  if (op.kind === "remove") {
    // In the thread pool too: an unlink waits on the file system's journal, which the log's flushes keep busy.
    return unlink(ctx.toPath(op.key)).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" || error.code === "ENOTDIR" ? undefined : Promise.reject(error)));
  }
  if (op.key === "") {
    for (const entry of readdirSync(ctx.base)) if (!ctx.hidden.includes(entry)) await rm(join(ctx.base, entry), { recursive: true, force: true });
    return;
  }
  await rm(ctx.toPath(op.key), { recursive: true, force: true });
}

/**
 * Writes `data` to `tmp` and renames it over `target`, every step in the thread pool: a rename over a
 * record whose new data is not flushed makes ext4 allocate and start writing it inside the call
 * (auto_da_alloc), which would hold the event loop for a millisecond or more on a busy disk.
 */
async function writeThroughPool(target: string, tmp: string, data: string | Uint8Array): Promise<void> {
  try {
    await writeFile(tmp, data, { mode: FILE_MODE });
    await renameInto(tmp, target);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
}

/** The files and folders `op` changes, which a checkpoint flushes one by one where syncfs is missing. */
export function dirtyPaths(op: WalOp, ctx: ApplyContext): string[] {
  const path = op.key === "" ? ctx.base : ctx.toPath(op.key);
  const out = op.kind === "text" || op.kind === "bytes" ? [path] : [];
  // Folders up to the base: a write may have created them, and each rename or removal changes its folder.
  for (let dir = dirname(path); dir.length >= ctx.base.length; dir = dirname(dir)) {
    out.push(dir);
    if (dir === ctx.base) break;
  }
  return out;
}

/** Errors that say an op cannot apply to the tree as it is (a key that is a folder, or under a record). */
export const CONFLICT = new Set(["EISDIR", "ENOTDIR", "EEXIST", "ENOTEMPTY"]);

/**
 * Start-up replay of the log folder `walDir`: applies every complete frame of every segment, oldest
 * first (whole texts and removals, so applying one again is harmless and the last write of a key wins),
 * makes the result durable when `flush` is set, then deletes the segments. An op the tree refuses (a key
 * that has become a folder), as the driver refused it when it was first made, is skipped. Returns the
 * sequence number the next segment takes. `journal` is handed the replayed ops' keys before the flush and
 * the deletion (the key journal records them durably there, and returns more paths for the flush).
 */
export function replayLog(walDir: string, ctx: ApplyContext, flush: boolean, journal?: (keys: OpKey[]) => readonly string[]): number {
  let names: string[];
  try {
    names = readdirSync(walDir).filter((name) => /^\d{16}\.log$/.test(name)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 1;
    throw error;
  }
  const dirty = new Set<string>();
  const keys: OpKey[] = [];
  for (const name of names) {
    for (const ops of decodeFrames(readFileSync(join(walDir, name)))) {
      for (const op of ops) {
        keys.push({ kind: op.kind, key: op.key });
        try {
          applyOpSync(op, ctx);
        } catch (error) {
          if (!CONFLICT.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
        }
        for (const path of dirtyPaths(op, ctx)) dirty.add(path);
      }
    }
  }
  if (names.length === 0) return 1;
  for (const path of journal?.(keys) ?? []) dirty.add(path);
  if (flush) makeDurableSync(ctx.base, dirty);
  for (const name of names) unlinkSync(join(walDir, name));
  if (flush) makeDurableSync(walDir, new Set([walDir]));
  return Number(names[names.length - 1].slice(0, 16)) + 1;
}

/** {@link applyOp} with synchronous calls, for the replay that runs before the driver serves anything. */
function applyOpSync(op: WalOp, ctx: ApplyContext): void {
  if (op.kind === "remove") return removeIfPresent(ctx.toPath(op.key));
  if (op.kind === "clear") {
    if (op.key !== "") return rmSync(ctx.toPath(op.key), { recursive: true, force: true });
    for (const entry of readdirSync(ctx.base)) if (!ctx.hidden.includes(entry)) rmSync(join(ctx.base, entry), { recursive: true, force: true });
    return;
  }
  const target = ctx.toPath(op.key);
  const tmp = ctx.tmpName();
  try {
    const fd = openSync(tmp, "w", FILE_MODE);
    try {
      const bytes = op.kind === "text" ? Buffer.from(op.value, "utf8") : op.value;
      for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at, bytes.byteLength - at);
    } finally {
      closeSync(fd);
    }
    mkdirSync(dirname(target), { recursive: true, mode: DIR_MODE });
    renameSync(tmp, target);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
}
