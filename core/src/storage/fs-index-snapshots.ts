import { createHash } from "node:crypto";
import { mkdirSync, opendirSync, readdirSync, rmSync, statSync } from "node:fs";
import { open, readFile, readdir, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { pacer, type IndexSnapshotStore, type RecordScan } from "../lists/index-snapshot.js";
import { DIR_MODE, writeFileAtomic } from "./fs-io.js";
import type { KeyJournal } from "./fs-key-journal.js";

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

/**
 * A record file whose inode changed (ctime) less than this long before a snapshot's stamp was taken counts
 * as changed after it: the kernel stamps files from a coarse clock that may lag the process's clock.
 */
const MARGIN_MS = 5000;
/** Folder entries read per `getdents` call during a scan, and entries handled between two looks at the clock. */
const SCAN_BUFFER = 1024;
const SCAN_STEP = 64;
const BASIS = /^(\d{1,30}):(\d{1,30}):(\d{1,16})(?::([0-9a-f]{32}))?$/;
/** Bytes of a snapshot read for its header line at a clean stop (a million entries need about 80 kB). */
const HEADER_READ = 1 << 20;

/** Options of {@link fsIndexSnapshots}. */
export interface FsIndexSnapshotOptions {
  /** How much earlier than a stamp a file's ctime still counts as a change after it (default 5 s). */
  marginMs?: number;
  /** The data folder's key journal: a stale snapshot it covers is corrected from its keys, without a scan. */
  journal?: KeyJournal;
}

const fileOf = (prefix: string) => `${createHash("sha256").update(prefix).digest("hex").slice(0, 40)}${SUFFIX}`;

/**
 * Persisted list indexes of an fs data dir: one file per prefix in `<dataDir>/index/` (0600 in a 0700
 * folder, written like records: temporary file, fsync, rename). A snapshot's token is the record folder's
 * inode and modification time in nanoseconds: creating, replacing (rename over) or removing a record
 * changes it, whichever process or version made the change, so a snapshot is only trusted while the
 * folder is exactly as it was when the snapshot was taken.
 *
 * A snapshot whose token no longer holds (a kill after writes) can still be used: its basis holds the
 * inodes of `data/` and of the record folder and the time its stamp was taken, before its entries were
 * read. {@link IndexSnapshotStore.scan} lists the folder and stats each file: a file whose ctime is not
 * older than that time (less a margin) was written, replaced or renamed into place since (a rename sets
 * the ctime of the file it moves on ext4, xfs, btrfs, tmpfs and APFS, whenever its content was written),
 * so only those are read again. A folder that is not the same inode (an import swapped it) cannot be told.
 */
export function fsIndexSnapshots(dataDir: string, options: FsIndexSnapshotOptions = {}): IndexSnapshotStore {
  const margin = options.marginMs ?? MARGIN_MS;
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
      // Taken before anything is read: whatever is renamed into the folder from now on has a later ctime.
      const at = Date.now();
      try {
        const info = await stat(recordsOf(prefix), { bigint: true });
        const root = await stat(join(dataDir, "data"), { bigint: true });
        const settled = Date.now() - Number(info.mtimeMs) > SETTLE_MS;
        const gen = options.journal?.generation;
        return { token: `${info.ino}:${info.mtimeNs}`, settled, basis: `${root.ino}:${info.ino}:${at}${gen ? `:${gen}` : ""}` };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "ENOTDIR") return { token: "absent", settled: true };
        throw error;
      }
    },
    async scan(prefix, basis, token) {
      // A basis lp wrote is under 120 characters: a longer one is not tried against the pattern.
      const match = basis.length <= 120 ? BASIS.exec(basis) : null;
      if (!match) return null;
      const folder = recordsOf(prefix);
      const same = await Promise.all([stat(join(dataDir, "data"), { bigint: true }), stat(folder, { bigint: true })]).then(
        ([root, info]) => info.isDirectory() && String(root.ino) === match[1] && String(info.ino) === match[2],
        () => false,
      );
      if (!same) return null;
      // Every key written since the snapshot, when the journal covers it: only those are read again.
      const journaled = token === undefined ? null : (options.journal?.changedUnder(prefix, token, match[4]) ?? null);
      if (journaled) return { changed: journaled, from: "journal" };
      return scanFolder(folder, Number(match[3]) - margin);
    },
    journaled: (prefix) => options.journal?.namesUnder(prefix) ?? null,
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

/**
 * The names of the files in `folder` (folders skipped, as the key walk skips them), and those whose ctime
 * is `since` or later (or that cannot be stat'ed: reading them says what they are). Read with synchronous
 * calls, a thousand entries per `getdents`, yielding to the event loop every few milliseconds.
 */
async function scanFolder(folder: string, since: number): Promise<RecordScan> {
  const present = new Set<string>();
  const changed: string[] = [];
  const pace = pacer();
  const dir = opendirSync(folder, { bufferSize: SCAN_BUFFER });
  try {
    let n = 0;
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      if (++n % SCAN_STEP === 0) await pace();
      if (!entry.isDirectory()) {
        let ctime: number | undefined;
        try {
          const info = statSync(join(folder, entry.name), { throwIfNoEntry: false });
          // Removed since the folder was read: not a record any more.
          if (!info) continue;
          ctime = info.ctimeMs;
        } catch {
          ctime = undefined;
        }
        present.add(entry.name);
        if (ctime === undefined || ctime >= since) changed.push(entry.name);
      }
    }
  } finally {
    dir.closeSync();
  }
  return { present, changed, from: "files" };
}

/**
 * By prefix, the token of each snapshot in `<dataDir>/index/` that is exact for its folder now (its token
 * is the folder's): what a clean stop, once nothing writes, hands the key journal's next generation.
 */
export async function exactSnapshots(dataDir: string): Promise<Record<string, string>> {
  const dir = join(dataDir, INDEX_DIR);
  const names = await readdir(dir).catch(() => [] as string[]);
  const exact: Record<string, string> = {};
  for (const name of names.filter((n) => n.endsWith(SUFFIX))) {
    const header = await headerOf(join(dir, name)).catch(() => null);
    if (!header || fileOf(header.prefix) !== name) continue;
    const parts = header.prefix.split(":");
    if (parts.some((p) => !SEGMENT.test(p) || p === "." || p === "..")) continue;
    const info = await stat(join(dataDir, "data", ...parts), { bigint: true }).catch(() => null);
    if (info?.isDirectory() && `${info.ino}:${info.mtimeNs}` === header.token) exact[header.prefix] = header.token;
  }
  return exact;
}

/** The prefix and token of a snapshot file's header line, or null when it has none that parses. */
async function headerOf(path: string): Promise<{ prefix: string; token: string } | null> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(HEADER_READ);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_READ, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(10);
    if (end < 0) return null;
    const header = JSON.parse(buffer.toString("utf8", 0, end)) as { prefix?: unknown; token?: unknown };
    return typeof header.prefix === "string" && typeof header.token === "string" ? { prefix: header.prefix, token: header.token } : null;
  } finally {
    await handle.close();
  }
}
