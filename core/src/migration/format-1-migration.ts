import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DIR_MODE, FILE_MODE, readTextOrNull, syncFolder, writeFileDurably } from "../storage/data-dir-files.js";
import { DATABASE_FILE, prefixEnd, SCHEMA } from "./format-2-schema.js";
import { inTransaction, openSqlite, prepareColumn } from "../storage/sqlite.js";
import { checkKey, parentOf } from "../storage/keys.js";
import { loggedChanges } from "./format-1-log.js";

/** What a format-1 data dir holds beside `format.json`, moved together into {@link ASIDE} once migrated. */
const LEGACY = ["data", "media", "index", "data.next", "media.next", "data.old", "media.old", "import.commit"];
/** Where the format-1 files are kept after the migration (never deleted by lp). */
export const ASIDE = "format-1";
/** Folders of the engine's own inside `data/` and `media/`, never records. */
const ENGINE = new Set([".tmp", ".wal"]);

/** Options of {@link migrateLegacyDataDir}. */
export interface MigrationOptions {
  log: (line: string) => void;
  /** Names the lp in the new `format.json`. */
  writtenBy?: string;
}

/** The format `format.json` names, or null when there is none (or it is not one: `openFormat` says why). */
function markedFormat(dataDir: string): number | null {
  try {
    const text = readTextOrNull(join(dataDir, "format.json"));
    const format = text === null ? null : (JSON.parse(text) as { format?: unknown }).format;
    return typeof format === "number" ? format : null;
  } catch {
    return null;
  }
}

/** Every file under `dir` with its path segments, leaving out the engine's own folders at its top. */
function* filesUnder(dir: string, segments: string[] = []): Generator<[string, string[]]> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const entry of entries) {
    if (segments.length === 0 && ENGINE.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path, [...segments, entry.name]);
    else if (entry.isFile()) yield [path, [...segments, entry.name]];
  }
}

/** The folder a format-1 dir's records (or media) are in: the one an import was swapping in, if it had committed. */
const sourceOf = (dataDir: string, folder: "data" | "media") => (existsSync(join(dataDir, "import.commit")) && existsSync(join(dataDir, `${folder}.next`)) ? join(dataDir, `${folder}.next`) : join(dataDir, folder));

/**
 * Copies a format-1 dir into a new database at `file`: every record file, then the changes its write-ahead
 * log still holds laid over them, then every media file. One transaction, no journal: the file is not the
 * store until it is renamed into place, so a kill part-way leaves only a file the next try removes.
 */
function copyInto(file: string, dataDir: string, log: (line: string) => void): { records: number; media: number } {
  rmSync(file, { force: true });
  closeSync(openSync(file, "w", FILE_MODE));
  const db = openSqlite(file);
  try {
    db.exec("PRAGMA journal_mode = OFF");
    db.exec("PRAGMA synchronous = OFF");
    db.exec(SCHEMA);
    const put = db.prepare("INSERT INTO records (key, parent, value) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    const remove = db.prepare("DELETE FROM records WHERE key = ?");
    const clear = db.prepare("DELETE FROM records WHERE key = ? OR (key >= ? AND key < ?)");
    const media = db.prepare("INSERT INTO media (key, bytes) VALUES (?, ?)");
    const counts = { records: 0, media: 0 };
    const take = (segments: string[], what: string): string | null => {
      try {
        return checkKey(segments.join(":"));
      } catch {
        log(`storage: left out ${what} ${segments.join("/")} (not a name lp writes)`);
        return null;
      }
    };
    inTransaction(db, () => {
      const records = sourceOf(dataDir, "data");
      for (const [path, segments] of filesUnder(records)) {
        const key = take(segments, "file");
        if (key) put.run(key, parentOf(key), readFileSync(path, "utf8"));
        if (++counts.records % 50_000 === 0) log(`storage: ${counts.records} records copied`);
      }
      for (const change of loggedChanges(records)) {
        if (change.kind === "put") put.run(change.key, parentOf(change.key), change.text);
        else if (change.kind === "remove") remove.run(change.key);
        else if (change.key === "") db.exec("DELETE FROM records");
        else clear.run(change.key, `${change.key}:`, prefixEnd(`${change.key}:`));
      }
      for (const [path, segments] of filesUnder(sourceOf(dataDir, "media"))) {
        const key = take(segments, "media file");
        if (key) media.run(key, readFileSync(path));
        counts.media++;
      }
    });
    counts.records = prepareColumn<[], number>(db, "SELECT count(*) FROM records").get() ?? 0;
    return counts;
  } finally {
    db.close();
  }
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

/** Moves the format-1 files into `<dataDir>/format-1/` (a rename each: nothing is copied or deleted). */
function moveAside(dataDir: string, log: (line: string) => void): void {
  const present = LEGACY.filter((name) => existsSync(join(dataDir, name)));
  if (present.length === 0) return;
  const aside = join(dataDir, ASIDE);
  mkdirSync(aside, { recursive: true, mode: DIR_MODE });
  for (const name of present) {
    let target = join(aside, name);
    for (let n = 1; existsSync(target); n++) target = join(aside, `${name}.${n}`);
    renameSync(join(dataDir, name), target);
  }
  syncFolder(dataDir);
  log(`storage: the format-1 files of ${dataDir} are kept in ${aside}; once you no longer need them, remove them with: rm -rf '${aside}'`);
}

/**
 * Migrates a data dir in the format-1 layout (a file per record under `data/`, media under `media/`) to
 * format 2 (`lp.db`), all or nothing, before the store opens: the database is built as `lp.db.migrating`,
 * flushed, and renamed into place; only then is `format.json` moved to 2 and the old files moved aside.
 * Every step after the rename is safe to repeat, so a kill anywhere leaves either the format-1 dir as it
 * was (the next start migrates again from scratch) or the database in place (the next start finishes).
 */
export function migrateLegacyDataDir(dataDir: string, options: MigrationOptions): void {
  const db = join(dataDir, DATABASE_FILE);
  const legacy = existsSync(join(dataDir, "data")) || existsSync(join(dataDir, "data.next"));
  const marked = markedFormat(dataDir);
  const writtenBy = options.writtenBy ?? "lp";
  if (existsSync(db)) {
    // Renamed into place by a migration a kill stopped before the marker moved: the database is whole.
    if (marked === 1) writeFileDurably(join(dataDir, "format.json"), `${JSON.stringify({ format: 2, written_by: writtenBy })}\n`);
    if (legacy && (marked === null || marked <= 2)) moveAside(dataDir, options.log);
    return;
  }
  if (!legacy || (marked !== null && marked !== 1)) return;
  options.log(`storage: migrating ${dataDir} from format 1 (a file per record) to format 2 (one SQLite database, ${DATABASE_FILE})`);
  const building = `${db}.migrating`;
  const counts = copyInto(building, dataDir, options.log);
  syncFile(building);
  renameSync(building, db);
  syncFolder(dataDir);
  writeFileDurably(join(dataDir, "format.json"), `${JSON.stringify({ format: 2, written_by: writtenBy })}\n`);
  options.log(`storage: migrated ${dataDir} to format 2: ${counts.records} records and ${counts.media} media files in ${db}`);
  moveAside(dataDir, options.log);
}
