import { chmodSync, closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { systemClock, type Clock } from "../deps.js";
import { openDatabase } from "../db/database.js";
import { migrationsFor } from "../db/migrations/index.js";
import { MIGRATION_TABLE } from "../db/migrate.js";
import { DATA_DIR_FORMAT, DATABASE_FILE, readMarker } from "../db/open-data-dir.js";
import { TABLE_ORDER, type CatalogTable } from "../db/table-catalog.js";
import { DIR_MODE, FILE_MODE, syncFolder, writeFileDurably } from "../storage/data-dir-files.js";
import { inTransaction, openSqlite, prepareColumn, type SqliteDatabase } from "../storage/sqlite.js";

/** One problem `lp doctor` found in a data dir of format 3. */
export interface DatabaseProblem {
  check: "format" | "database" | "foreign_key" | "media" | "orphan" | "mode";
  /** What it is about: the file, the table and row, the media path. */
  key: string;
  /** Where it is: a file of the data dir. */
  where: string;
  message: string;
  /** Whether `--fix` repairs it (missing media, a newer or unreadable format need a person). */
  fixable: boolean;
}

/** What {@link runDatabaseDoctor} found and, with `fix`, did. */
export interface DatabaseDoctorReport {
  where: string;
  /** The format `format.json` names (null: none, or not readable). */
  format: number | null;
  /** Rows of the database's tables that could be read. */
  rows: number;
  problems: DatabaseProblem[];
  /** What `--fix` did, one line each. */
  fixed: string[];
}

/** Options of {@link runDatabaseDoctor}. */
export interface DatabaseDoctorOptions {
  fix: boolean;
  /** Names this lp in a `format.json` that `--fix` writes. */
  writtenBy: string;
  /** Names what `--fix` keeps aside (`lp.db.before-fix-<time>`). */
  clock?: Clock;
}

/** Where `--fix` moves orphan media (never deleted), under the data dir. */
export const QUARANTINE = "quarantine";
/** Most rows of one check a report names: a damaged table must not answer with a million lines. */
const MAX_REPORTED = 100;
/** Rows of a damaged table read past, at most, before the copy gives up on the rest of it. */
const MAX_SKIPS = 10_000;

/**
 * Checks a data dir of format 3 below the store (so it sees what is really there, and changes nothing
 * unless asked to fix): the format marker, SQLite's own checks of the database (`PRAGMA integrity_check`
 * for its pages and indexes, `PRAGMA foreign_key_check` for rows naming a row that is not there), the
 * media files rows name and do not find, the media files no row names (orphans), and the modes of the
 * dir's files. With `fix` it writes a missing marker, copies every readable row into a fresh database that
 * replaces `lp.db` (a row the schema refuses, such as one whose parent is gone, stays only in the old
 * file, which is kept beside it), moves orphans into `quarantine/` and tightens modes: it never deletes.
 * Problems it cannot fix (missing media, a newer format) stay in the report.
 */
export async function runDatabaseDoctor(dataDir: string, options: DatabaseDoctorOptions): Promise<DatabaseDoctorReport> {
  const file = join(dataDir, DATABASE_FILE);
  const markerFile = join(dataDir, "format.json");
  const problems: DatabaseProblem[] = [];
  const fixed: string[] = [];
  const report = (format: number | null, rows = 0): DatabaseDoctorReport => ({ where: dataDir, format, rows, problems, fixed });

  let format: number | null = null;
  let unreadable = false;
  try {
    format = readMarker(markerFile)?.format ?? null;
  } catch (error) {
    // The marker's own refusal, less its advice to run lp doctor.
    unreadable = true;
    const says = (error as Error).message.split("; run `lp doctor`")[0];
    problems.push({ check: "format", key: "format.json", where: markerFile, fixable: false, message: `${says}: --fix does not guess a format; put back the marker of the lp that wrote this dir` });
  }
  if (format !== null && format > DATA_DIR_FORMAT) {
    // Rows of a newer format may not match this lp's schema: checking them would report sound ones as damaged.
    problems.push({ check: "format", key: "format.json", where: markerFile, fixable: false, message: `format ${format} is newer than this lp reads (${DATA_DIR_FORMAT}): upgrade lp to check this dir (nothing else was checked)` });
    return report(format);
  }
  if (!existsSync(file)) {
    // No database: a dir lp serve has not opened yet (or one of format 1, which it migrates).
    if (format !== null && format !== 1) problems.push({ check: "database", key: DATABASE_FILE, where: file, fixable: false, message: "is missing (lp serve makes an empty one at its next start)" });
    return report(format);
  }

  let db: SqliteDatabase;
  try {
    db = openSqlite(file, { readOnly: !options.fix, mustExist: true, busyTimeoutMs: 5000 });
    db.exec("SELECT count(*) FROM sqlite_master");
  } catch (error) {
    problems.push({ check: "database", key: DATABASE_FILE, where: file, fixable: false, message: `cannot be opened: ${(error as Error).message}` });
    return report(format);
  }
  let closed = false;
  const close = () => {
    if (!closed) db.close();
    closed = true;
  };
  try {
    const tables = new Set(prepareColumn<[], string>(db, "SELECT name FROM sqlite_master WHERE type = 'table'").all());
    if (tables.has("records")) {
      problems.push({ check: "format", key: DATABASE_FILE, where: file, fixable: false, message: "is a format-2 database: lp serve migrates it to format 3 at its next start (check it after that)" });
      return report(format);
    }
    const known = new Set(Object.keys(migrationsFor("sqlite")));
    const ran = tables.has(MIGRATION_TABLE) ? prepareColumn<[], string>(db, `SELECT name FROM ${MIGRATION_TABLE}`).all() : [];
    const unknown = ran.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      problems.push({ check: "format", key: DATABASE_FILE, where: file, fixable: false, message: `was migrated by a newer lp (migration ${unknown.sort().at(-1)} is unknown to this version): upgrade lp to check it (nothing else was checked)` });
      return report(format);
    }
    const behind = ran.length < known.size;

    if (!unreadable && (format === null || format < DATA_DIR_FORMAT)) {
      const says = format === null ? "no format marker" : `the marker says format ${format}`;
      problems.push({ check: "format", key: "format.json", where: markerFile, fixable: true, message: `${says}, but ${DATABASE_FILE} is in format ${DATA_DIR_FORMAT}` });
      if (options.fix) {
        writeFileDurably(markerFile, `${JSON.stringify({ format: DATA_DIR_FORMAT, written_by: options.writtenBy })}\n`);
        fixed.push(`wrote ${markerFile}: format ${DATA_DIR_FORMAT}`);
      }
    }

    const damage = [...integrityProblems(db, file), ...foreignKeyProblems(db, file)];
    problems.push(...damage);

    const named = readMediaNames(db);
    const stored = mediaFiles(join(dataDir, "media"));
    for (const path of named.paths) {
      if (!stored.has(path)) problems.push({ check: "media", key: path, where: join(dataDir, "media", ...path.split("/")), fixable: false, message: "is named by a product image, and is missing (not fixable: the image has to be uploaded again)" });
    }
    const orphans = [...stored].filter((path) => {
      const [area, owner] = path.split("/");
      // Media no row accounts for: an upload whose product was never written, a page's image whose page is gone.
      // Other media (drawn on request, such as placeholders) is left alone.
      return area === "products" ? !named.paths.has(path) : area === "pages" && !named.pages.has(owner!);
    });
    for (const path of orphans) {
      problems.push({ check: "orphan", key: path, where: join(dataDir, "media", ...path.split("/")), fixable: true, message: "is media no row names (left by an upload whose row was never written, or a page that is gone)" });
    }

    const rows = countRows(db);
    if (options.fix && damage.length > 0) {
      if (behind) {
        fixed.push(`did not copy ${DATABASE_FILE}: its schema is older than this lp's; start lp serve once (it migrates the schema), then run lp doctor --fix again`);
      } else {
        fixed.push(...(await copyReadableRows(db, dataDir, options.clock ?? systemClock, close)));
      }
    }
    if (options.fix) for (const path of orphans) fixed.push(`quarantined ${path}: ${quarantine(dataDir, path)}`);

    const modes = modeProblems(dataDir);
    problems.push(...modes);
    if (options.fix) {
      for (const problem of modes) {
        const mode = lstatSync(problem.where).isDirectory() ? DIR_MODE : FILE_MODE;
        chmodSync(problem.where, mode);
        fixed.push(`chmod ${mode.toString(8)} ${problem.where}`);
      }
    }
    return report(format, rows);
  } finally {
    close();
  }
}

/** Problems `--fix` leaves: missing media and a newer or unreadable format need a person. */
export function unfixedProblems(report: DatabaseDoctorReport): DatabaseProblem[] {
  return report.problems.filter((p) => !p.fixable);
}

/** SQLite's check of every page and index: one problem per line it answers other than `ok`. */
function integrityProblems(db: SqliteDatabase, file: string): DatabaseProblem[] {
  let lines: string[];
  try {
    lines = prepareColumn<[], string>(db, `PRAGMA integrity_check(${MAX_REPORTED})`).all();
  } catch (error) {
    lines = [(error as Error).message];
  }
  return lines.filter((line) => line !== "ok").map((line) => ({ check: "database", key: DATABASE_FILE, where: file, fixable: true, message: `integrity check: ${line}` }));
}

/** Rows naming a row of another table that is not there (a foreign key the engine did not hold). */
function foreignKeyProblems(db: SqliteDatabase, file: string): DatabaseProblem[] {
  let rows: Array<{ table: string; rowid: number | null; parent: string }>;
  try {
    rows = db.prepare(`SELECT "table", rowid, parent FROM pragma_foreign_key_check LIMIT ${MAX_REPORTED}`).all() as typeof rows;
  } catch (error) {
    return [{ check: "database", key: DATABASE_FILE, where: file, fixable: true, message: `foreign key check: ${(error as Error).message}` }];
  }
  return rows.map((row) => ({
    check: "foreign_key",
    key: `${row.table} row ${row.rowid}`,
    where: file,
    fixable: true,
    message: `names a row of ${row.parent} that is not there (--fix leaves it out of the fresh database; the old one keeps it)`,
  }));
}

/** The media paths product images name, and the ids of the pages there are (readable rows only). */
function readMediaNames(db: SqliteDatabase): { paths: Set<string>; pages: Set<string> } {
  const paths = new Set<string>();
  const pages = new Set<string>();
  for (const row of readableRows<{ media_path: string | null }>(db, "product_images", "media_path")) if (row.media_path) paths.add(row.media_path);
  for (const row of readableRows<{ id: string }>(db, "pages", "id")) pages.add(row.id);
  return { paths, pages };
}

/** Every media file under `dir` by its media path (`products/{id}/{image}.png`), leaving out the engine's own dot folders. */
function mediaFiles(dir: string): Set<string> {
  const found = new Set<string>();
  const walk = (folder: string) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) found.add(relative(dir, path).split(sep).join("/"));
    }
  };
  walk(dir);
  return found;
}

/** Moves an orphan into `quarantine/media/` under the same path (numbered when taken); says where it went. */
function quarantine(dataDir: string, path: string): string {
  const from = join(dataDir, "media", ...path.split("/"));
  let to = join(dataDir, QUARANTINE, "media", ...path.split("/"));
  for (let n = 1; existsSync(to); n++) to = `${join(dataDir, QUARANTINE, "media", ...path.split("/"))}.${n}`;
  mkdirSync(dirname(to), { recursive: true, mode: DIR_MODE });
  renameSync(from, to);
  syncFolder(dirname(to));
  return `moved to ${to}`;
}

/** Files and folders of the dir readable by others than their owner. */
function modeProblems(dataDir: string): DatabaseProblem[] {
  const file = join(dataDir, DATABASE_FILE);
  const problems: DatabaseProblem[] = [];
  const paths: Array<[string, boolean]> = [[dataDir, true], [join(dataDir, "format.json"), false], [file, false], [`${file}-wal`, false], [`${file}-shm`, false], [join(dataDir, "media"), true], [join(dataDir, QUARANTINE), true]];
  for (const [path, isDir] of paths) {
    const mode = existsSync(path) ? lstatSync(path).mode & 0o777 : 0;
    if (mode & 0o077) problems.push({ check: "mode", key: relative(dataDir, path) || ".", where: path, fixable: true, message: `mode ${mode.toString(8)}, readable by others (lp keeps ${(isDir ? DIR_MODE : FILE_MODE).toString(8)})` });
  }
  return problems;
}

/** Every row of `table` that can still be read, in rowid order, stepping past rows a damaged page hides. */
function* readableRows<T>(db: SqliteDatabase, table: string, columns: string): Generator<T> {
  let next;
  try {
    next = db.prepare(`SELECT rowid AS lp_rowid, ${columns} FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT 256`);
  } catch {
    return;
  }
  let after = -1;
  for (let skips = 0; skips < MAX_SKIPS; ) {
    let rows: Array<T & { lp_rowid: number }>;
    try {
      rows = next.all(after) as unknown as Array<T & { lp_rowid: number }>;
    } catch {
      after += 1;
      skips += 1;
      continue;
    }
    if (rows.length === 0) return;
    for (const row of rows) {
      const { lp_rowid: _, ...rest } = row;
      yield rest as T;
    }
    after = rows[rows.length - 1]!.lp_rowid;
  }
}

function countRows(db: SqliteDatabase): number {
  let rows = 0;
  for (const table of TABLE_ORDER) for (const _ of readableRows(db, table, "1")) rows++;
  return rows;
}

/**
 * Copies every row that can be read into a fresh database of this lp's schema, table by table, parents
 * first, with every constraint on: a row the schema refuses (its parent gone, a duplicate an index would
 * not have let in) is left out, and so are the rows that name it. The fresh file replaces `lp.db` by a
 * rename; the old file (and its write-ahead log) is kept as `lp.db.before-fix-<time>`, never deleted.
 */
async function copyReadableRows(db: SqliteDatabase, dataDir: string, clock: Clock, closeSource: () => void): Promise<string[]> {
  const file = join(dataDir, DATABASE_FILE);
  const fresh = `${file}.fixing`;
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(fresh + suffix, { force: true });
  await (await openDatabase({ kind: "sqlite", file: fresh })).close();
  const target = openSqlite(fresh, { mustExist: true });
  const copied: Record<string, number> = {};
  const left: Record<string, number> = {};
  try {
    target.exec("PRAGMA foreign_keys = ON");
    inTransaction(target, () => {
      for (const table of TABLE_ORDER) {
        const columns = sharedColumns(db, target, table);
        const insert = target.prepare(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
        copied[table] = 0;
        for (const row of readableRows<Record<string, never>>(db, table, columns.map((c) => `"${c}"`).join(", "))) {
          try {
            insert.run(...columns.map((c) => row[c]));
            copied[table]!++;
          } catch {
            // SQLite undoes the refused statement alone; the transaction goes on.
            left[table] = (left[table] ?? 0) + 1;
          }
        }
      }
    });
    target.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    target.close();
  }
  const fd = openSync(fresh, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  closeSource();
  const aside = `${file}.before-fix-${clock.now().toISOString().replace(/[:.]/g, "-")}`;
  renameSync(file, aside);
  for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
  for (const suffix of ["-wal", "-shm"]) rmSync(fresh + suffix, { force: true });
  renameSync(fresh, file);
  syncFolder(dataDir);
  const total = Object.values(copied).reduce((sum, n) => sum + n, 0);
  const leftOut = Object.entries(left).map(([table, n]) => `${n} of ${table}`);
  return [
    `copied ${total} readable rows into a fresh ${file}${leftOut.length ? `, leaving out the rows the schema refused (${leftOut.join(", ")})` : ""}; the old database is kept as ${aside}`,
  ];
}

/** The columns of `table` in both databases (a column the old file lacks takes its default). */
function sharedColumns(from: SqliteDatabase, to: SqliteDatabase, table: CatalogTable): string[] {
  const columns = (db: SqliteDatabase) => prepareColumn<[string], string>(db, "SELECT name FROM pragma_table_info(?)").all(table);
  const old = new Set(columns(from));
  return columns(to).filter((name) => old.has(name));
}
