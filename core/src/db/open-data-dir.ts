import { closeSync, copyFileSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { systemClock, toTimestamp, type Clock } from "../deps.js";
import { createMediaBlobs } from "../media/media-blobs.js";
import { migrateLegacyDataDir } from "../migration/format-1-migration.js";
import { DIR_MODE, readTextOrNull, syncFolder, writeFileDurably } from "../storage/data-dir-files.js";
import { openSqlite, prepareColumn } from "../storage/sqlite.js";
import { openDatabase, type Database } from "./database.js";
import { importRecords, readFormat2File } from "./import-records.js";

/** The format of a data dir this lp writes: `lp.db` with a table per resource, media files in `media/`. */
export const DATA_DIR_FORMAT = 3;
/** The database of a data dir. */
export const DATABASE_FILE = "lp.db";
/** Where a format-2 database is kept once migrated (never deleted by lp). */
export const FORMAT_2_ASIDE = "format-2";
/** The format-3 database while a migration builds it: never the store until renamed to {@link DATABASE_FILE}. */
const BUILDING = `${DATABASE_FILE}.format-3`;
/** Files SQLite keeps beside a database. */
const SIDE_FILES = ["-wal", "-shm", "-journal"];

/** The durable steps of a migration from format 2, in order. */
export type MigrationStep = "built" | "kept-aside" | "renamed" | "marked";

/** Options of {@link openDataDir}. */
export interface OpenDataDirOptions {
  log: (line: string) => void;
  /** Names this lp in `format.json`. */
  writtenBy: string;
  /** Stamps what a migration writes (the settings it makes). */
  clock?: Clock;
  /** Called once each step of a migration from format 2 is durable (a test stops there, as a kill would). */
  onStep?: (step: MigrationStep) => void;
}

/** A data dir in a format newer than this lp reads: it refuses to open it, saying to upgrade. */
export class NewerDataDirError extends Error {
  constructor(dir: string, format: number, writtenBy: string, reader: string) {
    super(`${dir} is in format ${format} (written by ${writtenBy}); this lp (${reader}) reads format ${DATA_DIR_FORMAT} and older. Upgrade lp to open it.`);
    this.name = "NewerDataDirError";
  }
}

/**
 * Throws {@link NewerDataDirError} when `format.json` names a format newer than this lp (`reader`) reads, before
 * anything is written in the dir (`lp serve` asks before it takes the dir's lock); else the marker, or null.
 */
export function refuseNewerDataDir(dir: string, reader: string): { format: number; written_by: string } | null {
  const marker = readMarker(join(dir, "format.json"));
  if (marker && marker.format > DATA_DIR_FORMAT) throw new NewerDataDirError(dir, marker.format, marker.written_by, reader);
  return marker;
}

/**
 * Opens the store of a data dir: `lp.db` in format 3, made on first open. An older dir is migrated first:
 * format 1 (a file per record) by `migration/format-1-migration.ts` into format 2, then format 2 (JSON
 * records in one table, `records`) into format 3 ({@link migrateFormat2}). A dir of a newer format, by
 * `format.json`, and a database migrated by a newer lp are refused with "upgrade lp". The caller holds the
 * data dir's lock: nothing else may open the dir meanwhile.
 */
export async function openDataDir(dir: string, options: OpenDataDirOptions): Promise<Database> {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const markerFile = join(dir, "format.json");
  const marker = refuseNewerDataDir(dir, options.writtenBy);
  if (!marker || marker.format < DATA_DIR_FORMAT) migrateLegacyDataDir(dir, { log: options.log, writtenBy: options.writtenBy });

  const file = join(dir, DATABASE_FILE);
  let migrated = false;
  if (databaseKind(file) === "format-2") {
    await migrateFormat2(dir, options);
    migrated = true;
  }
  const database = await openDatabase({ kind: "sqlite", file });
  if (!migrated && readMarker(markerFile)?.format !== DATA_DIR_FORMAT) {
    writeMarker(markerFile, options.writtenBy);
    // A migration stopped after its rename: the database is whole, only the marker had not moved on.
    if (marker?.format === 2 && existsSync(join(dir, FORMAT_2_ASIDE, DATABASE_FILE))) options.log(keptAsideLine(dir));
  }
  return database;
}

/**
 * Migrates the format-2 `lp.db` of `dir` to format 3, all or nothing: the new database is built beside it
 * ({@link BUILDING}) by `importRecords` in one transaction, media files written to `media/` first, and
 * flushed; the old database is checkpointed (its write-ahead log emptied into it) and kept as
 * `format-2/lp.db` by a hard link, so it stays where it was too; the new one is renamed over `lp.db`, one
 * atomic step; `format.json` moves to 3 last. At every point `lp.db` is the whole old database or the
 * whole new one: a kill before the rename leaves the old one in place (the next open starts over, the
 * half-built file removed), a kill after it the new one (the next open writes the marker).
 */
export async function migrateFormat2(dir: string, options: OpenDataDirOptions): Promise<void> {
  const file = join(dir, DATABASE_FILE);
  const building = join(dir, BUILDING);
  const step = options.onStep ?? (() => {});
  removeWithSideFiles(building);
  options.log(`storage: migrating ${dir} from format 2 (JSON records in one table) to format ${DATA_DIR_FORMAT} (a table per resource, ${DATABASE_FILE})`);

  const source = readFormat2File(file);
  const database = await openDatabase({ kind: "sqlite", file: building });
  const media = createMediaBlobs({ kind: "files", dir: join(dir, "media") });
  let result;
  try {
    result = await importRecords(database, source, { media, now: toTimestamp((options.clock ?? systemClock).now()) });
    // Everything into the file itself: the file renamed into place must be the whole database.
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(database.db);
  } finally {
    await database.close();
    await media.dispose();
  }
  settleSideFiles(building);
  syncFile(building);
  step("built");

  checkpoint(file);
  const aside = keepAside(dir, file);
  step("kept-aside");

  renameSync(building, file);
  syncFolder(dir);
  step("renamed");

  writeMarker(join(dir, "format.json"), options.writtenBy);
  const rows = Object.values(result.tables).reduce((sum, n) => sum + n, 0);
  options.log(`storage: migrated ${dir} to format ${DATA_DIR_FORMAT}: ${rows} rows and ${result.media} media files; ${keptAsideLine(dir, aside)}`);
  if (result.left.length > 0) {
    const shown = result.left.slice(0, 5).map((l) => `${l.key} (${l.reason})`).join("; ");
    options.log(`storage: ${result.left.length} format-2 records were left out (they stay in ${aside}): ${shown}${result.left.length > 5 ? "; ..." : ""}`);
  }
  step("marked");
}

/**
 * The older format {@link openDataDir} would migrate `dir` from at its next open: 1 (a file per record under
 * `data/`, no `lp.db` yet) or 2 (`lp.db` holding JSON records, its `records` table); null for a dir of
 * format 3, an empty one, or one it would refuse (a newer or unreadable marker, a file SQLite cannot open),
 * which `lp doctor` reports itself. Reads only: the database is opened read-only.
 */
export function olderFormatOf(dir: string): 1 | 2 | null {
  let marker;
  try {
    marker = readMarker(join(dir, "format.json"));
  } catch {
    return null;
  }
  if (marker && marker.format > DATA_DIR_FORMAT) return null;
  const file = join(dir, DATABASE_FILE);
  if (!existsSync(file)) return existsSync(join(dir, "data")) || existsSync(join(dir, "data.next")) ? 1 : null;
  try {
    const db = openSqlite(file, { readOnly: true, mustExist: true, busyTimeoutMs: 5000 });
    try {
      return prepareColumn<[], string>(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'records'").get() ? 2 : null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** What `lp.db` is: absent (or empty), a format-2 database (its `records` table) or a format-3 one. */
function databaseKind(file: string): "none" | "format-2" | "format-3" {
  if (!existsSync(file)) return "none";
  const db = openSqlite(file, { mustExist: true, busyTimeoutMs: 5000 });
  try {
    const tables = new Set(prepareColumn<[], string>(db, "SELECT name FROM sqlite_master WHERE type = 'table'").all());
    return tables.has("records") ? "format-2" : tables.size === 0 ? "none" : "format-3";
  } finally {
    db.close();
  }
}

/** Moves everything the write-ahead log of the database at `file` holds into the file, and empties the log. */
function checkpoint(file: string): void {
  const db = openSqlite(file, { mustExist: true, busyTimeoutMs: 5000 });
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  settleSideFiles(file);
  syncFile(file);
}

/**
 * Checks that a closed database's write-ahead log holds nothing (it was checkpointed), then removes the
 * empty log and shared-memory files SQLite may leave: beside a file that is about to be renamed, or whose
 * name another database is about to take, a stale one would be read as that database's.
 */
function settleSideFiles(file: string): void {
  const wal = `${file}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) throw new Error(`${wal} still holds changes after a checkpoint; is another process using ${file}?`);
  // Not a rollback journal: a WAL database has none, and one there would be the only copy of a change.
  for (const suffix of ["-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
}

/**
 * Keeps the format-2 database as `format-2/lp.db` (numbered when that name holds another file): a hard
 * link, so the file is kept without a copy and `lp.db` still names it until the new one replaces it; a
 * copy, flushed before it takes its name, where the file system has no hard links. Safe to repeat.
 */
function keepAside(dir: string, file: string): string {
  const folder = join(dir, FORMAT_2_ASIDE);
  mkdirSync(folder, { recursive: true, mode: DIR_MODE });
  const inode = statSync(file).ino;
  let target = join(folder, DATABASE_FILE);
  for (let n = 1; existsSync(target); n++) {
    if (statSync(target).ino === inode) return target;
    target = join(folder, `${DATABASE_FILE}.${n}`);
  }
  try {
    linkSync(file, target);
  } catch {
    const partial = `${target}.partial`;
    copyFileSync(file, partial);
    syncFile(partial);
    renameSync(partial, target);
  }
  syncFolder(folder);
  return target;
}

function keptAsideLine(dir: string, aside = join(dir, FORMAT_2_ASIDE, DATABASE_FILE)): string {
  const folder = join(dir, FORMAT_2_ASIDE);
  return `the format-2 database of ${dir} is kept as ${aside}; once you no longer need it, remove it with: rm -rf '${folder}'`;
}

/** Removes a file that is never the store (a half-built database) and SQLite's files beside it. */
function removeWithSideFiles(file: string): void {
  for (const suffix of ["", ...SIDE_FILES]) rmSync(`${file}${suffix}`, { force: true });
}

/** Flushes a file's bytes to disk. */
function syncFile(file: string): void {
  const fd = openSync(file, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What `format.json` says, or null when there is none; a marker that names no format is refused, naming the file. */
export function readMarker(file: string): { format: number; written_by: string } | null {
  const text = readTextOrNull(file);
  if (text === null) return null;
  let parsed: { format?: unknown; written_by?: unknown } | null;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON; run \`lp doctor\` on this data dir.`);
  }
  if (!parsed || typeof parsed !== "object" || !Number.isInteger(parsed.format) || (parsed.format as number) < 1) {
    throw new Error(`${file} does not name a format ({"format": N, "written_by": "lp X.Y.Z"}); run \`lp doctor\` on this data dir.`);
  }
  return { format: parsed.format as number, written_by: typeof parsed.written_by === "string" ? parsed.written_by : "an unknown lp" };
}

function writeMarker(file: string, writtenBy: string): void {
  writeFileDurably(file, `${JSON.stringify({ format: DATA_DIR_FORMAT, written_by: writtenBy })}\n`);
}
