import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createManualClock } from "../deps.js";
import { openSqlite, prepareColumn } from "../storage/sqlite.js";
import { useTempDirs } from "../testing/temp-dirs.js";
import type { Database } from "./database.js";
import { MIGRATION_TABLE } from "./migrate.js";
import { DATA_DIR_FORMAT, openDataDir, type MigrationStep } from "./open-data-dir.js";
import { TABLE_ORDER } from "./table-catalog.js";
import { readTableRows } from "./table-copy.js";

const root = new URL("../../../test/formats/data-dirs/", import.meta.url).pathname;
const tempDir = useTempDirs();
const clock = createManualClock("2026-12-01T09:00:00.000Z");
const STEPS: MigrationStep[] = ["built", "kept-aside", "renamed", "marked"];
const AT = "2026-12-01T09:00:00.000Z";

/**
 * Opens `dir` in a child process that kills itself with SIGKILL as soon as the migration's step `stop` is
 * durable: nothing after it runs, no file is closed, as when a machine's process is killed there.
 */
function runKilled(dir: string, stop: MigrationStep): Promise<{ signal: NodeJS.Signals | null; log: string[] }> {
  const module = new URL("./open-data-dir.ts", import.meta.url).pathname;
  const script = `import(${JSON.stringify(module)}).then((m) => m.openDataDir(process.argv[1], { log: (l) => console.log(l), writtenBy: "lp test", clock: { now: () => new Date(${JSON.stringify(AT)}) }, onStep: (s) => { if (s === process.argv[2]) process.kill(process.pid, "SIGKILL"); } }))`;
  const child = spawn(process.execPath, ["--import", "tsx", "-e", script, dir, stop], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk));
  return new Promise((resolve) => child.once("close", (_code, signal) => resolve({ signal, log: out.split("\n").filter(Boolean) })));
}

/** A copy of a committed data dir, owner-only as lp keeps it (git keeps no modes). */
function copyOf(name: string): string {
  const dir = tempDir(name);
  cpSync(join(root, name), dir, { recursive: true });
  chmodSync(dir, 0o700);
  return dir;
}

/** Every row of every table, and every media file with its size: what a data dir holds. */
async function contentsOf(database: Database, dir: string) {
  const tables: Record<string, unknown[]> = {};
  for (const table of TABLE_ORDER) tables[table] = await readTableRows(database.db, table);
  const media = existsSync(join(dir, "media")) ? readdirSync(join(dir, "media"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => `${e.parentPath.slice(dir.length)}/${e.name}:${statSync(join(e.parentPath, e.name)).size}`).sort() : [];
  return { tables, media };
}

const tablesOf = (file: string) => {
  const db = openSqlite(file, { mustExist: true });
  try {
    return prepareColumn<[], string>(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
  } finally {
    db.close();
  }
};

async function openAndRead(dir: string, log: string[] = []) {
  const database = await openDataDir(dir, { log: (line) => log.push(line), writtenBy: "lp test", clock });
  try {
    return await contentsOf(database, dir);
  } finally {
    await database.close();
  }
}

describe("opening a data dir", () => {
  it("migrates a format-2 dir on first open: lp.db in format 3, the old database kept as format-2/lp.db, the marker last, one line saying where", async () => {
    const dir = copyOf("format-2");
    const log: string[] = [];
    const contents = await openAndRead(dir, log);
    expect(contents.tables.products).toHaveLength(515);
    expect(contents.tables.webhook_deliveries).toHaveLength(517);
    expect(contents.media).toHaveLength(4);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toEqual({ format: DATA_DIR_FORMAT, written_by: "lp test" });
    expect(tablesOf(join(dir, "lp.db"))).toContain(MIGRATION_TABLE);
    expect(tablesOf(join(dir, "lp.db"))).not.toContain("records");
    // The old database is whole (its write-ahead log was moved into it), beside no log of its own.
    expect(tablesOf(join(dir, "format-2", "lp.db"))).toContain("records");
    expect(readdirSync(join(dir, "format-2"))).toEqual(["lp.db"]);
    expect(readdirSync(dir).filter((name) => name.startsWith("lp.db.")).sort()).toEqual([]);
    const where = log.filter((line) => line.includes(`kept as ${join(dir, "format-2", "lp.db")}`));
    expect(where).toHaveLength(1);
    expect(where[0]).toContain(`rm -rf '${join(dir, "format-2")}'`);
    // Opened again: format 3, nothing migrated, nothing said.
    const again: string[] = [];
    expect(await openAndRead(dir, again)).toEqual(contents);
    expect(again).toEqual([]);
  });

  it("migrates a format-1 dir through format 2", async () => {
    const dir = copyOf("format-1");
    const log: string[] = [];
    const contents = await openAndRead(dir, log);
    expect(contents.tables.products).toHaveLength(515);
    expect(contents.tables.sites).toHaveLength(1);
    expect(readdirSync(join(dir, "format-1")).sort()).toEqual(expect.arrayContaining(["data", "media"]));
    expect(tablesOf(join(dir, "format-2", "lp.db"))).toContain("records");
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(DATA_DIR_FORMAT);
    expect(log.some((line) => line.includes("format-1 files"))).toBe(true);
    expect(log.some((line) => line.includes("format-2 database"))).toBe(true);
  });

  it.each(STEPS)("a migration killed (SIGKILL) after the step %s is finished or started over by the next open, with the same result", async (stop) => {
    const clean = await openAndRead(copyOf("format-2"));
    const dir = copyOf("format-2");
    const killed = await runKilled(dir, stop);
    expect(killed.signal).toBe("SIGKILL");
    // What a kill before the rename leaves: the old database still in place; after it, the new one.
    expect(tablesOf(join(dir, "lp.db"))).toContain(stop === "built" || stop === "kept-aside" ? "records" : MIGRATION_TABLE);
    const log: string[] = [];
    expect(await openAndRead(dir, log)).toEqual(clean);
    expect(tablesOf(join(dir, "format-2", "lp.db"))).toContain("records");
    expect(readdirSync(join(dir, "format-2"))).toEqual(["lp.db"]);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(DATA_DIR_FORMAT);
    // Where the old database is was said once, by the run that moved the marker.
    expect([...killed.log, ...log].filter((line) => line.includes("kept as"))).toHaveLength(1);
  });

  it("starts over after a kill in the middle of the build: the half-built file and its log are not the store", async () => {
    const clean = await openAndRead(copyOf("format-2"));
    const dir = copyOf("format-2");
    writeFileSync(join(dir, "lp.db.format-3"), "SQLite format 3\0 half a database");
    writeFileSync(join(dir, "lp.db.format-3-wal"), Buffer.alloc(4096, 7));
    expect(await openAndRead(dir)).toEqual(clean);
    expect(readdirSync(dir).filter((name) => name.startsWith("lp.db.format-3"))).toEqual([]);
  });

  it("makes a new dir in format 3", async () => {
    const dir = join(tempDir("new"), "data");
    const contents = await openAndRead(dir);
    expect(contents.tables.accounts).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toEqual({ format: DATA_DIR_FORMAT, written_by: "lp test" });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "lp.db")).mode & 0o777).toBe(0o600);
  });

  it("refuses a dir of a newer format, saying to upgrade lp, and leaves it as it was", async () => {
    const dir = copyOf("format-2");
    const newer = `{"format": ${DATA_DIR_FORMAT + 1}, "written_by": "lp 99.0.0"}\n`;
    writeFileSync(join(dir, "format.json"), newer);
    await expect(openDataDir(dir, { log: () => {}, writtenBy: "lp 1.0.0" })).rejects.toThrow(
      `${dir} is in format ${DATA_DIR_FORMAT + 1} (written by lp 99.0.0); this lp (lp 1.0.0) reads format ${DATA_DIR_FORMAT} and older. Upgrade lp to open it.`,
    );
    expect(readFileSync(join(dir, "format.json"), "utf8")).toBe(newer);
    expect(tablesOf(join(dir, "lp.db"))).toContain("records");
    expect(existsSync(join(dir, "format-2"))).toBe(false);
  });

  it("refuses a marker that names no format, pointing at lp doctor", async () => {
    const dir = tempDir("bad-marker");
    writeFileSync(join(dir, "format.json"), "{ not json");
    await expect(openDataDir(dir, { log: () => {}, writtenBy: "lp test" })).rejects.toThrow("run `lp doctor`");
  });
});
