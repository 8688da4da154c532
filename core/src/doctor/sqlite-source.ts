import { chmodSync, closeSync, existsSync, fsyncSync, lstatSync, openSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DIR_MODE, FILE_MODE, readTextOrNull, syncFolder, writeFileDurably } from "../storage/data-dir-files.js";
import { DATABASE_FILE, SCHEMA } from "../storage/sqlite-database.js";
import { inTransaction, openSqlite, prepareColumn, type SqliteDatabase } from "../storage/sqlite.js";
import type { DoctorProblem, DoctorSource, SourceRecord } from "./doctor.js";

/** Rows of a damaged table read past, at most, before the copy gives up on the rest of it. */
const MAX_SKIPS = 10_000;

/** Every row of `table` that can still be read, in rowid order, stepping past rows a damaged page hides. */
function* readableRows<T>(db: SqliteDatabase, table: "records" | "media", columns: string): Generator<T & { rowid: number }> {
  const next = db.prepare(`SELECT rowid, ${columns} FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT 256`);
  let after = -1;
  for (let skips = 0; skips < MAX_SKIPS; ) {
    let rows: Array<T & { rowid: number }>;
    try {
      rows = next.all(after) as unknown as Array<T & { rowid: number }>;
    } catch {
      after += 1;
      skips += 1;
      continue;
    }
    if (rows.length === 0) return;
    yield* rows;
    after = rows[rows.length - 1]!.rowid;
  }
}

/**
 * A data dir of format 2 as `lp doctor` reads it: `lp.db` (opened read-only unless fixing, so a running
 * `lp serve` is never disturbed), its rows below the storage drivers, SQLite's own `PRAGMA integrity_check`
 * for the database's pages and indexes. `--fix` copies every readable row (records that pass their schema,
 * media) into a fresh database that replaces `lp.db`; the old file is kept beside it, never deleted.
 */
export function sqliteDoctorSource(dataDir: string, options: { fix: boolean }): DoctorSource & { close(): void } {
  const file = join(dataDir, DATABASE_FILE);
  const formatFile = join(dataDir, "format.json");
  let db: SqliteDatabase | null = null;
  let openError: string | null = null;
  if (existsSync(file)) {
    try {
      db = openSqlite(file, { readOnly: !options.fix, mustExist: true, busyTimeoutMs: 5000 });
    } catch (error) {
      openError = (error as Error).message;
    }
  }
  const where = (key: string) => `${file}, key ${key}`;
  const left = new Set<string>();
  const leftMedia = new Set<string>();
  return {
    where: dataDir,
    async records() {
      if (!db) return [];
      return [...readableRows<{ key: string; value: string }>(db, "records", "key, value")].map((row): SourceRecord => ({ key: row.key, text: row.value, where: where(row.key) }));
    },
    async hasMedia(path) {
      return db !== null && db.prepare("SELECT 1 FROM media WHERE key = ?").get(path.split("/").join(":")) !== undefined;
    },
    async mediaPaths() {
      return db ? prepareColumn<[], string>(db, "SELECT key FROM media ORDER BY key").all().map((key) => key.split(":").join("/")) : [];
    },
    async format() {
      return { key: "format.json", where: formatFile, text: readTextOrNull(formatFile) };
    },
    async writeFormat(text) {
      writeFileDurably(formatFile, text);
    },
    async indexProblems() {
      // No database at all is an empty store (lp serve makes one at its first start); one that cannot be opened is a problem.
      if (!db) return openError === null ? [] : [{ check: "database", key: DATABASE_FILE, where: file, fixable: true, message: `cannot be opened: ${openError}` }];
      let lines: string[];
      try {
        lines = prepareColumn<[], string>(db, "PRAGMA integrity_check(100)").all();
      } catch (error) {
        lines = [(error as Error).message];
      }
      return lines.filter((line) => line !== "ok").map((line): DoctorProblem => ({ check: "database", key: DATABASE_FILE, where: file, fixable: true, message: `integrity check: ${line}` }));
    },
    async rebuildIndexes(keys) {
      const fresh = `${file}.fixing`;
      rmSync(fresh, { force: true });
      closeSync(openSync(fresh, "w", FILE_MODE));
      const target = openSqlite(fresh);
      let copied = 0;
      let media = 0;
      try {
        target.exec("PRAGMA journal_mode = OFF");
        target.exec(SCHEMA);
        const put = target.prepare("INSERT OR REPLACE INTO records (key, parent, value) VALUES (?, ?, ?)");
        const blob = target.prepare("INSERT OR REPLACE INTO media (key, bytes) VALUES (?, ?)");
        inTransaction(target, () => {
          if (!db) return;
          for (const row of readableRows<{ key: string; parent: string; value: string }>(db, "records", "key, parent, value")) {
            if (keys.has(row.key) && !left.has(row.key)) put.run(row.key, row.parent, row.value), copied++;
          }
          for (const row of readableRows<{ key: string; bytes: Uint8Array }>(db, "media", "key, bytes")) if (!leftMedia.has(row.key)) blob.run(row.key, row.bytes), media++;
        });
      } finally {
        target.close();
      }
      const fd = openSync(fresh, "r+");
      fsyncSync(fd);
      closeSync(fd);
      db?.close();
      db = null;
      const aside = `${file}.before-fix-${new Date().toISOString().replace(/[:.]/g, "-")}`;
      if (existsSync(file)) renameSync(file, aside);
      for (const suffix of ["-wal", "-shm"]) if (existsSync(file + suffix)) renameSync(file + suffix, aside + suffix);
      renameSync(fresh, file);
      syncFolder(dataDir);
      return [`copied ${copied} readable record(s) and ${media} media file(s) into a fresh ${file}; the old database is kept as ${aside}`];
    },
    async modeProblems() {
      const problems: DoctorProblem[] = [];
      for (const [path, isDir] of [[dataDir, true], [formatFile, false], [file, false], [`${file}-wal`, false], [`${file}-shm`, false], [join(dataDir, "format-1"), true]] as const) {
        const mode = existsSync(path) ? lstatSync(path).mode & 0o777 : 0;
        if (mode & 0o077) problems.push({ check: "mode", key: path.slice(dataDir.length + 1) || ".", where: path, fixable: true, message: `mode ${mode.toString(8)}, readable by others (lp keeps ${(isDir ? DIR_MODE : FILE_MODE).toString(8)})` });
      }
      return problems;
    },
    async fixModes(problems) {
      return problems.map((problem) => {
        const mode = lstatSync(problem.where).isDirectory() ? DIR_MODE : FILE_MODE;
        chmodSync(problem.where, mode);
        return `chmod ${mode.toString(8)} ${problem.where}`;
      });
    },
    async quarantine(record) {
      // Left out of the fresh database `rebuildIndexes` writes; the old file, kept aside, still holds it.
      left.add(record.key);
      return `left out of the fresh database (kept in the old one, set aside)`;
    },
    async setAsideMedia(path) {
      leftMedia.add(path.split("/").join(":"));
      return "left out of the fresh database (kept in the old one, set aside)";
    },
    close() {
      db?.close();
    },
  };
}
