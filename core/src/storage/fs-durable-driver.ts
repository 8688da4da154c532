import { mkdirSync, readdirSync, rmSync, statSync, unlinkSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { defineDriver, normalizeKey } from "unstorage";
import type { BatchOp } from "./create-storage.js";
import { DIR_MODE, readFileOrNull, writeFileAtomic } from "./fs-io.js";
import { writeGroup } from "./fs-group-write.js";
import { walkKeyChunks } from "./fs-key-walk.js";
import { WriteAheadLog, type WalLimits } from "./fs-wal.js";
import { replayLog, type ApplyContext } from "./fs-wal-apply.js";
import type { KeyJournal } from "./fs-key-journal.js";
import { loggedWrites } from "./fs-wal-writes.js";
import { createReadCache } from "./read-cache.js";

/** Options of {@link fsDurableDriver}. */
export interface FsDurableOptions {
  /** Folder that holds the records. Created when missing. */
  base: string;
  /** fsync every record before it becomes visible (default true). */
  fsync?: boolean;
  /**
   * Keep the text of records read or written in memory (default true). Only safe when this driver is
   * the only writer of `base`, as `lp serve` is under its data-dir lock.
   */
  cache?: boolean;
  /**
   * Make writes durable through the write-ahead log in `<base>/.wal/` (default true; ignored without
   * `fsync`): one flush of the log per group of concurrent writes instead of one per record file. False:
   * each record file is flushed before its rename (media, written a file at a time).
   */
  log?: boolean;
  /** Checkpoint limits of the log (tests make them small). */
  logLimits?: Partial<WalLimits>;
  /** With the log: records the keys written, for persisted list indexes checked after a kill (fs-key-journal.ts). */
  keyJournal?: KeyJournal;
}

const SEGMENT = /^[A-Za-z0-9_.-]+$/;
const TMP_DIR = ".tmp";
const WAL_DIR = ".wal";
/** Entries of the base that belong to the driver, never records: skipped by every key walk and clear. */
const HIDDEN = [TMP_DIR, WAL_DIR];

/**
 * A file-system driver that never exposes a half-written record: each write goes to a temporary file,
 * is flushed, and is then renamed over the target, which POSIX makes atomic (see fs-io.ts). Readers
 * therefore see the old value or the new one. With `log` (the default), a write is first appended to the
 * write-ahead log (fs-wal.ts), whose one flush covers every write in flight, and the record file is
 * renamed into place unflushed; checkpoints make the files durable and drop the log, and the next start
 * replays whatever a crash left in it, before anything reads. Keys map to nested folders (`a:b:c` is `a/b/c`), and `getKeys(prefix)` only
 * walks the prefix's folder instead of the whole tree.
 */
export const fsDurableDriver = defineDriver((options: FsDurableOptions) => {
  const base = resolve(options.base);
  const tmpDir = join(base, TMP_DIR);
  const doSync = options.fsync !== false;
  const useLog = doSync && options.log !== false;
  let counter = 0;
  const cache = options.cache === false ? null : createReadCache();
  // Unique per driver instance, so two stores in one process never share a temporary name.
  const instance = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  // Before `.tmp` is emptied: its marker says whether the journal's generation may be carried on.
  const journal = useLog ? options.keyJournal : undefined;
  journal?.open();
  // Leftovers of a crash mid-write are never visible records; drop them at start.
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { recursive: true, mode: DIR_MODE });
  journal?.mark();

  const toPath = (key: string): string => {
    // Empty segments are refused rather than collapsed, so `a::b` and `a:b` never alias one file.
    const parts = key.split(":");
    if (parts.some((p) => !SEGMENT.test(p) || p === "." || p === ".." || HIDDEN.includes(p))) {
      throw new Error(`Unsafe storage key: ${JSON.stringify(key)}`);
    }
    return join(base, ...parts);
  };

  const tmpName = () => join(tmpDir, `${instance}-${++counter}`);
  const applyContext: ApplyContext = { base, toPath, tmpName, hidden: HIDDEN };
  // What a crash left in the log is applied before anything reads the folder (the server holds the data-dir lock).
  const firstSeq = replayLog(join(base, WAL_DIR), applyContext, doSync, journal && ((keys) => journal.replayed(keys)));
  const logged = useLog ? loggedWrites(applyContext, cache) : null;
  const wal = logged ? new WriteAheadLog(join(base, WAL_DIR), base, () => logged.settle(), options.logLimits, firstSeq, journal) : null;
  if (wal) logged!.attach(wal);

  const readOrNull = (key: string): Promise<Buffer | null> => readFileOrNull(toPath(key), isMissing);

  async function readUncached(key: string): Promise<string | null> {
    const seen = cache?.changes;
    const data = await readOrNull(key);
    if (data === null) return null;
    const text = data.toString("utf8");
    if (cache && cache.changes === seen) cache.set(key, text);
    return text;
  }

  // The cache follows the file: it learns the new text only once the rename has made it the record, and
  // forgets the key when a write fails (the file may hold either value then).
  const writeAtomic = async (key: string, data: string | Uint8Array): Promise<void> => {
    const path = toPath(key);
    cache?.delete(key); // from now on, a read may see either text: none of them is cached until the write ends
    try {
      await writeFileAtomic(path, join(tmpDir, `${instance}-${++counter}`), data, doSync);
    } catch (error) {
      cache?.delete(key);
      throw error;
    }
    if (typeof data === "string") cache?.set(key, data);
    else cache?.delete(key);
  };

  const walk = async (dir: string, prefix: string, out: string[]): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return;
      throw error;
    }
    for (const entry of entries) {
      if (dir === base && HIDDEN.includes(entry.name)) continue;
      const key = prefix ? `${prefix}:${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(join(dir, entry.name), key, out);
      else out.push(key);
    }
  };

  return {
    name: "fs-durable",
    options,
    flags: { maxDepth: false },
    /**
     * Applies several writes as one group commit ({@link writeGroup}): the new texts flushed together, then
     * renamed and removals made in order within each chain. What `Stores.batch` is on fs.
     */
    writeBatch(ops: readonly BatchOp[]): Promise<void> {
      if (logged) return logged.batch(ops.map((op) => ({ key: normalizeKey(op.key), text: "remove" in op || op.value === undefined ? null : toText(op.value) })));
      const group = ops.map((op) => {
        const key = normalizeKey(op.key);
        return { key, path: toPath(key), text: "remove" in op || op.value === undefined ? null : toText(op.value), chain: op.chain ?? 0 };
      });
      return writeGroup(group, { tmpName, flush: doSync, cache });
    },
    /** Drops every cached text: the folder was swapped under the driver (an import), so none is true any more. */
    forgetCache() {
      cache?.clear();
    },
    /** Resolves once every acknowledged write is in its record file. */
    async settle() {
      await logged?.settle();
    },
    /** Waits for the writes in flight and checkpoints the log: every write durable in the record files, no segment left. */
    async checkpoint() {
      await wal?.close();
    },
    /** A clean stop leaves no log behind (a folder written aside for an import is swapped in without one). */
    async dispose() {
      await wal?.close();
    },
    async hasItem(key) {
      const unfiled = logged?.peek(key);
      if (unfiled !== undefined) return unfiled !== null;
      // A stat, not a read: media files can be megabytes.
      try {
        return statSync(toPath(key)).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    getItem(key) {
      const unfiled = logged?.peek(key);
      if (unfiled !== undefined) return unfiled === null || typeof unfiled === "string" ? unfiled : Buffer.from(unfiled).toString("utf8");
      // A cached record is answered without a promise of its own (the Storage wraps it once).
      const hit = cache?.get(key);
      if (hit !== undefined) return hit;
      return readUncached(key);
    },
    async getItemRaw(key) {
      const unfiled = logged?.peek(key);
      if (unfiled !== undefined) return unfiled === null ? null : Buffer.from(unfiled);
      return readOrNull(key);
    },
    async setItem(key, value) {
      if (logged) return logged.write(key, toText(value));
      await writeAtomic(key, value);
    },
    async setItemRaw(key, value) {
      if (logged) return logged.write(key, value as Uint8Array);
      await writeAtomic(key, value as Uint8Array);
    },
    async removeItem(key) {
      if (logged) return logged.remove(key);
      cache?.delete(key);
      try {
        unlinkSync(toPath(key));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },
    async getKeys(prefix) {
      // Every acknowledged write in its file first, so the walk sees it.
      await logged?.settle();
      const clean = (prefix ?? "").split(":").filter(Boolean).join(":");
      const out: string[] = [];
      // A prefix may end mid-segment ("products:ab"): walk the last complete folder and filter.
      const parts = clean ? clean.split(":") : [];
      const folderParts = parts.filter((p) => SEGMENT.test(p) && p !== "..");
      if (folderParts.length !== parts.length) return [];
      let dirParts = folderParts;
      const asFolder = join(base, ...dirParts);
      if (dirParts.length > 0 && !isDirSync(asFolder)) dirParts = dirParts.slice(0, -1);
      await walk(join(base, ...dirParts), dirParts.join(":"), out);
      return clean ? out.filter((k) => k.startsWith(clean)) : out;
    },
    /** `getKeys(prefix)` read and handed over a chunk at a time (`key-chunks.ts`), for index builds. */
    directKeyChunks(prefix: string): AsyncIterable<string[]> {
      const walk = () => walkKeyChunks(base, prefix, HIDDEN);
      if (!logged) return walk();
      return (async function* () {
        await logged.settle();
        yield* walk();
      })();
    },
    async clear(prefix) {
      const clean = (prefix ?? "").split(":").filter(Boolean);
      // Logged like any write, so a replay applies it in its place: nothing written before it comes back.
      if (logged) return logged.clear(clean.join(":"));
      cache?.clearPrefix(clean.join(":"));
      if (clean.length === 0) {
        for (const entry of readdirSync(base)) {
          if (!HIDDEN.includes(entry)) await rm(join(base, entry), { recursive: true, force: true });
        }
        return;
      }
      await rm(toPath(clean.join(":")), { recursive: true, force: true });
    },
  };
});

/** A record's text as unstorage would store it: strings as they are, anything else as JSON. */
function toText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** ENOENT, or ENOTDIR when a parent of the path is a record rather than a folder. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function isDirSync(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Separator used when mapping keys to paths; exported for tests that inspect the tree. */
export const PATH_SEPARATOR = sep;
