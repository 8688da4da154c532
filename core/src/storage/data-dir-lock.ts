import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openSqlite, type SqliteDatabase } from "./sqlite.js";

const LOCK_FILE = "lp.lock";
const PID_FILE = "lp.lock.pid";
/** How long a claim waits for the lock: `lp doctor` looks at it for a moment; a server holds it for its lifetime. */
const CLAIM_WAIT_MS = 250;
const SQLITE_BUSY = 5;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_NOTADB = 26;
const SQLITE_HEADER = "SQLite format 3\u0000";

/**
 * The locks this process holds, until released: node:sqlite closes a connection it collects, and the lock with
 * it, so a claim must stay reachable whatever its caller keeps.
 */
const held = new Set<SqliteDatabase>();

/** Who holds a data dir: the pid its server wrote beside the lock, when it could be read. */
export interface DataDirHolder {
  pid: number | null;
}

/**
 * Claims a data directory for this process. A data dir is one server's: at start it makes the work its last
 * process had claimed due at once (it does not wait for those leases to lapse), and its rate limits and dashboard
 * sessions are counted in the process, so a second server on the directory would take the first one's work; it is
 * refused, with the first one's pid. Processes that share state share PostgreSQL.
 *
 * The claim is SQLite's own file lock: `lp.lock` is an empty SQLite database that the process holds in exclusive
 * locking mode from its start to its end. The operating system releases that lock when the process ends, however
 * it ends (a SIGKILL too), so nothing is ever taken over and no pid is trusted; two servers starting at once cannot
 * both win, and a pid reused by another program refuses nothing. `lp.lock.pid` says who holds it, for the refusal's
 * message only. `lp.lock` stays when released: removing it would let a server that had opened it meanwhile hold a
 * lock that the next one, creating the file anew, would not see.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOCK_FILE);
  replaceOlderLock(dir, file);
  // Made here rather than by SQLite, owner-only: a disk that refuses it is named by its errno (EROFS, ENOSPC, EACCES).
  writeFileSync(file, "", { flag: "a", mode: 0o600 });
  const lock = openSqlite(file, { busyTimeoutMs: CLAIM_WAIT_MS });
  try {
    // No journal: the lock's database holds nothing; its first transaction takes the lock the mode keeps.
    lock.exec("PRAGMA journal_mode = MEMORY");
    lock.exec("PRAGMA locking_mode = EXCLUSIVE");
    lock.exec("BEGIN EXCLUSIVE");
    lock.exec("COMMIT");
  } catch (error) {
    lock.close();
    const { errcode } = error as { errcode?: unknown };
    if (errcode === SQLITE_BUSY) throw heldError(dir, pidOf(dir));
    if (errcode === SQLITE_FULL) throw new Error(`Cannot claim ${dir} with ${file} (ENOSPC): its disk is full; make room there and start again.`, { cause: error });
    // A damaged lock file (it holds nothing) can go.
    const advice = errcode === SQLITE_CORRUPT || errcode === SQLITE_NOTADB ? `; if no lp server runs on ${dir}, remove ${file} and start again` : "";
    throw new Error(`Cannot claim ${dir} with ${file}: ${(error as Error).message}${advice}.`, { cause: error });
  }
  try {
    writeFileSync(join(dir, PID_FILE), String(process.pid), { mode: 0o600 });
  } catch (error) {
    // A full or read-only disk: the start is refused with the errno, and the dir left free.
    lock.close();
    throw error;
  }
  held.add(lock);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // The pid first: once the lock is free, the file may already name the next holder.
    try {
      rmSync(join(dir, PID_FILE), { force: true });
    } finally {
      held.delete(lock);
      lock.close();
    }
  };
}

/** Whether a live server holds `dir` (`lp doctor` checks before it reads); null when none does. */
export function dataDirHolder(dir: string): DataDirHolder | null {
  const file = join(dir, LOCK_FILE);
  if (!existsSync(file)) return null;
  const older = olderLockHolder(file);
  if (older !== undefined) return older === null ? null : { pid: older };
  let probe: SqliteDatabase | null = null;
  try {
    probe = openSqlite(file, { busyTimeoutMs: 0 });
    probe.exec("BEGIN IMMEDIATE");
    probe.exec("ROLLBACK");
    return null;
  } catch (error) {
    return (error as { errcode?: unknown }).errcode === SQLITE_BUSY ? { pid: pidOf(dir) } : null;
  } finally {
    probe?.close();
  }
}

function heldError(dir: string, pid: number | null): Error {
  return new Error(`Another lp server${pid === null ? "" : ` (pid ${pid})`} is using ${dir}; stop it or pass another --data-dir.`);
}

/** The pid `lp.lock.pid` names, or null. */
function pidOf(dir: string): number | null {
  try {
    return toPid(readFileSync(join(dir, PID_FILE), "utf8"));
  } catch {
    return null;
  }
}

/** A pid written as text, or null. */
function toPid(text: string): number | null {
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/**
 * `lp.lock` as lp wrote it before it was SQLite's lock: a pid in a text file, which a server removed at its stop.
 * Refused when that process is alive (an older lp serving the dir now), else removed.
 */
function replaceOlderLock(dir: string, file: string): void {
  const holder = olderLockHolder(file);
  if (holder === undefined) return;
  if (holder !== null) throw heldError(dir, holder);
  rmSync(file, { force: true });
}

/**
 * For a lock file that is not an SQLite database: the live process its text names (null when none), as an older
 * lp left it; undefined for SQLite's lock, or no file.
 */
function olderLockHolder(file: string): number | null | undefined {
  let bytes: Buffer;
  try {
    // One page at most: SQLite's lock never holds a row.
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  // An empty file is an SQLite database not yet written (a claim that was under way).
  if (bytes.length === 0 || bytes.toString("latin1", 0, SQLITE_HEADER.length) === SQLITE_HEADER) return undefined;
  const pid = toPid(bytes.toString("utf8"));
  return pid !== null && pid !== process.pid && isAlive(pid) ? pid : null;
}

/** Whether a process `pid` is alive (one of another user counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
