import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, watch, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { openSqlite, prepareArrays, toBuffer } from "../storage/sqlite.js";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../testing/temp-dirs.js";
import { ASIDE, migrateLegacyDataDir } from "./format-1-migration.js";

const fixtures = new URL("../../../test/formats/data-dirs/", import.meta.url).pathname;
/** A migration child still running when its test ends (failed or timed out): stopped before its folder goes. */
let running: ChildProcess | null = null;
const tempDir = useTempDirs(async () => {
  const child = running;
  running = null;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
});

/** Resolves once `name` exists in `dir`: on the folder's change events, so the wait takes no CPU from the writer. */
function appears(dir: string, name: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, () => {
      if (existsSync(join(dir, name))) done();
    });
    const done = () => {
      watcher.close();
      resolve();
    };
    if (existsSync(join(dir, name))) done();
  });
}

/** A copy of a committed format-1 dir. */
function copyOf(name: string): string {
  const dir = tempDir(name);
  cpSync(join(fixtures, name), dir, { recursive: true });
  return dir;
}

/** Every file under `dir` by its key (`a/b/c` is `a:b:c`), leaving out the engine's `.tmp` and `.wal`. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const inner = join(path, entry.name);
      if (entry.isDirectory() && path === dir && (entry.name === ".tmp" || entry.name === ".wal")) continue;
      if (entry.isDirectory()) walk(inner);
      else out.set(relative(dir, inner).split(sep).join(":"), readFileSync(inner));
    }
  };
  walk(dir);
  return out;
}

/** The rows of a migrated database: records by key (text) and media by key (bytes). */
function rowsOf(dir: string) {
  const db = openSqlite(join(dir, "lp.db"), { readOnly: true });
  try {
    const records = new Map(prepareArrays<[], [string, string]>(db, "SELECT key, value FROM records").all().map(([k, v]) => [k, v]));
    const media = new Map(prepareArrays<[], [string, Uint8Array]>(db, "SELECT key, bytes FROM media").all().map(([k, v]) => [k, toBuffer(v)]));
    return { records, media };
  } finally {
    db.close();
  }
}

const quiet = { log: () => {}, writtenBy: "lp test" };

describe("the migration of a format-1 data dir", () => {
  it("copies every record file's text and every media file's bytes, then keeps the old files aside", () => {
    const dir = copyOf("format-1");
    const records = filesOf(join(dir, "data"));
    const media = filesOf(join(dir, "media"));
    const lines: string[] = [];
    migrateLegacyDataDir(dir, { log: (line) => lines.push(line), writtenBy: "lp test" });
    const rows = rowsOf(dir);
    expect([...rows.records.keys()].sort()).toEqual([...records.keys()].sort());
    for (const [key, bytes] of records) expect(rows.records.get(key), key).toBe(bytes.toString("utf8"));
    expect([...rows.media.keys()].sort()).toEqual([...media.keys()].sort());
    for (const [key, bytes] of media) expect(rows.media.get(key)!.equals(bytes), key).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toEqual({ format: 2, written_by: "lp test" });
    expect(readdirSync(join(dir, ASIDE)).sort()).toEqual(["data", "index", "media"]);
    expect(filesOf(join(dir, ASIDE, "data")).size).toBe(records.size);
    expect(statSync(join(dir, "lp.db")).mode & 0o777).toBe(0o600);
    expect(lines[0]).toMatch(/^storage: migrating .* from format 1/);
    expect(lines.at(-1)).toBe(`storage: the format-1 files of ${dir} are kept in ${join(dir, ASIDE)}; once you no longer need them, remove them with: rm -rf '${join(dir, ASIDE)}'`);
  });

  it("lays the changes a killed lp left in its write-ahead log over the record files", () => {
    const dir = copyOf("format-1-killed");
    const facts = JSON.parse(readFileSync(join(fixtures, "format-1-killed.expected.json"), "utf8")) as { only_in_the_log: string };
    const key = `acct:acct_dev:products:${facts.only_in_the_log}`;
    expect(existsSync(join(dir, "data", ...key.split(":")))).toBe(false);
    migrateLegacyDataDir(dir, quiet);
    const product = JSON.parse(rowsOf(dir).records.get(key)!) as { title: string };
    expect(product.title).toBe("Written just before a kill 3");
  });

  it("starts over from a database a kill left half-built, and finishes one a kill left before the marker moved", () => {
    const dir = copyOf("format-1");
    writeFileSync(join(dir, "lp.db.migrating"), "a torn file, not a database");
    migrateLegacyDataDir(dir, quiet);
    const whole = rowsOf(dir).records.size;
    expect(existsSync(join(dir, "lp.db.migrating"))).toBe(false);
    // As if killed after the rename: the marker still says 1 and the old files are where they were.
    for (const name of readdirSync(join(dir, ASIDE))) renameSync(join(dir, ASIDE, name), join(dir, name));
    writeFileSync(join(dir, "format.json"), '{"format":1,"written_by":"lp 0.1.0"}\n');
    const lines: string[] = [];
    migrateLegacyDataDir(dir, { log: (line) => lines.push(line), writtenBy: "lp test" });
    expect(lines.some((line) => line.includes("migrating"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(2);
    expect(existsSync(join(dir, "data"))).toBe(false);
    expect(rowsOf(dir).records.size).toBe(whole);
  });

  it("killed half-way by SIGKILL, leaves the format-1 dir as it was, and the next try migrates it whole", async () => {
    const dir = tempDir("migrate-kill");
    // Enough records that the copy takes a while (the kill lands within a millisecond of its start).
    const folder = join(dir, "data", "acct", "a", "items");
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < 5000; i++) writeFileSync(join(folder, `i${i}`), JSON.stringify({ id: `i${i}`, created_at: "2026-01-01T00:00:00.000Z", n: i }));
    writeFileSync(join(dir, "format.json"), '{"format":1,"written_by":"lp 0.1.0"}\n');
    // Killed once the copy has begun: the database being built appears in the folder.
    const building = appears(dir, "lp.db.migrating");
    const child = spawn(process.execPath, ["--import", "tsx", "-e", `import("${new URL("./format-1-migration.ts", import.meta.url).pathname}").then((m) => m.migrateLegacyDataDir(process.argv[1], { log: (l) => console.log(l) }))`, dir], { stdio: ["ignore", "ignore", "inherit"] });
    running = child;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await Promise.race([building, exited]);
    child.kill("SIGKILL");
    await exited;
    running = null;
    expect(child.signalCode, "the migration was still running when killed").toBe("SIGKILL");
    expect(existsSync(join(dir, "lp.db"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(1);
    expect(readdirSync(folder)).toHaveLength(5000);
    migrateLegacyDataDir(dir, quiet);
    expect(rowsOf(dir).records.size).toBe(5000);
    expect(existsSync(join(dir, "lp.db.migrating"))).toBe(false);
  });
});
