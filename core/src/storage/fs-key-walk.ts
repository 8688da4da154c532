import type { Dir } from "node:fs";
import { opendir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Directory entries read per call (one round trip to the thread pool) and keys handed over per chunk. */
const BUFFER = 256;
const CHUNK = 1024;

/**
 * The keys of the fs driver's `getKeys(prefix)` for a prefix of plain segments, read with `opendir` a few
 * hundred entries at a time and handed over in chunks, so no turn of the event loop walks a whole folder
 * (`readdir` of 100,000 entries makes every entry object in one turn). As the driver's walk does: the
 * prefix's folder and everything below it when it is a folder; otherwise the entries of its parent whose
 * names start with the prefix's last segment (a prefix may end mid-segment), and everything below those.
 * `hidden` names the driver's own folders (temporary files, the write-ahead log), skipped at `base`.
 */
export async function* walkKeyChunks(base: string, prefix: string, hidden: readonly string[]): AsyncGenerator<string[]> {
  const parts = prefix.split(":");
  const folder = join(base, ...parts);
  if (await isDir(folder)) {
    yield* walk(folder, prefix, () => true);
    return;
  }
  const parent = parts.slice(0, -1);
  const last = parts[parts.length - 1]!;
  yield* walk(join(base, ...parent), parent.join(":"), (name) => name.startsWith(last) && !(parent.length === 0 && hidden.includes(name)));
}

/** Files (and anything not a folder) under `dir` as keys below `key`, folders walked after the folder itself. */
async function* walk(dir: string, key: string, accept: (name: string) => boolean): AsyncGenerator<string[]> {
  let handle: Dir;
  try {
    handle = await opendir(dir, { bufferSize: BUFFER });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return;
    throw error;
  }
  const folders: string[] = [];
  let chunk: string[] = [];
  // Iterating a Dir closes it at the end, or when the caller stops early or an error is thrown.
  for await (const entry of handle) {
    if (!accept(entry.name)) continue;
    if (entry.isDirectory()) {
      folders.push(entry.name);
      continue;
    }
    chunk.push(key ? `${key}:${entry.name}` : entry.name);
    if (chunk.length >= CHUNK) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
  for (const name of folders) yield* walk(join(dir, name), key ? `${key}:${name}` : name, () => true);
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
