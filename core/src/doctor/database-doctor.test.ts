import { createHash } from "node:crypto";
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createManualClock } from "../deps.js";
import { openDataDir } from "../db/open-data-dir.js";
import { openSqlite, pragmaValue, prepareColumn } from "../storage/sqlite.js";
import { useTempDirs } from "../testing/temp-dirs.js";
import { QUARANTINE, runDatabaseDoctor, unfixedProblems } from "./database-doctor.js";

const fixture = new URL("../../../test/formats/data-dirs/format-2", import.meta.url).pathname;
const tempDir = useTempDirs();
const clock = createManualClock("2026-12-01T09:00:00.000Z");
const doctor = (dir: string, fix = false) => runDatabaseDoctor(dir, { fix, writtenBy: "lp test", clock });

/** A data dir of format 3 holding the format-2 fixture's data (515 products, three with images, a page, a site, deliveries). */
async function formatThreeDir(): Promise<string> {
  const dir = tempDir("doctor");
  cpSync(fixture, dir, { recursive: true });
  chmodSync(dir, 0o700);
  await (await openDataDir(dir, { log: () => {}, writtenBy: "lp test", clock })).close();
  return dir;
}

/** Runs `work` on the dir's database, as an outside program would (no lp on it). */
function onDatabase<T>(dir: string, work: (db: ReturnType<typeof openSqlite>) => T): T {
  const db = openSqlite(join(dir, "lp.db"), { mustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** Overwrites page `page` of the database with junk, as a torn write or a bad sector leaves it. */
function damagePage(dir: string, page: number): void {
  const size = onDatabase(dir, (db) => pragmaValue(db, "page_size") as number);
  const fd = openSync(join(dir, "lp.db"), "r+");
  try {
    writeSync(fd, Buffer.alloc(size, 0x55), 0, size, (page - 1) * size);
  } finally {
    closeSync(fd);
  }
}

const count = (dir: string, table: string) => onDatabase(dir, (db) => prepareColumn<[], number>(db, `SELECT count(*) FROM ${table}`).get()!);
const digest = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const rowsOf = (dir: string, table: string) => onDatabase(dir, (db) => db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all());

describe("lp doctor on format 3", () => {
  it("finds nothing wrong in a dir lp made, and says its format", async () => {
    const dir = await formatThreeDir();
    const report = await doctor(dir);
    expect(report).toMatchObject({ where: dir, format: 3, problems: [], fixed: [] });
    expect(report.rows).toBeGreaterThan(1000);
  });

  it("reports a damaged index page without changing the file; --fix copies every row into a fresh database and keeps the old one", async () => {
    const dir = await formatThreeDir();
    const before = rowsOf(dir, "products");
    damagePage(dir, onDatabase(dir, (db) => prepareColumn<[], number>(db, "SELECT rootpage FROM sqlite_master WHERE name = 'products_by_created_at'").get()!));
    const damaged = digest(join(dir, "lp.db"));
    const report = await doctor(dir);
    expect(report.problems.length).toBeGreaterThan(0);
    expect(report.problems.every((p) => p.check === "database" && p.fixable && p.message.startsWith("integrity check: "))).toBe(true);
    expect(digest(join(dir, "lp.db"))).toBe(damaged);

    const fixed = await doctor(dir, true);
    expect(fixed.fixed).toEqual([expect.stringMatching(/^copied \d+ readable rows into a fresh .*lp\.db; the old database is kept as .*lp\.db\.before-fix-2026-12-01T09-00-00-000Z$/)]);
    expect((await doctor(dir)).problems).toEqual([]);
    expect(rowsOf(dir, "products")).toEqual(before);
    // Never deleted: the damaged file is kept as it was.
    expect(digest(join(dir, "lp.db.before-fix-2026-12-01T09-00-00-000Z"))).toBe(damaged);
    // And lp opens the fresh one.
    await (await openDataDir(dir, { log: () => {}, writtenBy: "lp test" })).close();
  });

  it("reports a damaged page of a table; --fix keeps every row that can be read, and leaves out those that name the lost ones", async () => {
    const dir = await formatThreeDir();
    const leaves = onDatabase(dir, (db) => prepareColumn<[], number>(db, "SELECT pageno FROM dbstat WHERE name = 'products' AND pagetype = 'leaf' ORDER BY pageno").all());
    expect(leaves.length).toBeGreaterThan(3);
    damagePage(dir, leaves[Math.floor(leaves.length / 2)]!);
    expect((await doctor(dir)).problems.some((p) => p.check === "database")).toBe(true);

    const fixed = await doctor(dir, true);
    expect(fixed.fixed[0]).toMatch(/^copied \d+ readable rows/);
    const kept = count(dir, "products");
    expect(kept).toBeGreaterThan(400);
    expect(kept).toBeLessThan(515);
    const after = await doctor(dir);
    expect(after.problems.filter((p) => p.check === "database" || p.check === "foreign_key")).toEqual([]);
    // Every image left names a product that is there.
    expect(onDatabase(dir, (db) => prepareColumn<[], number>(db, "SELECT count(*) FROM product_images WHERE product_id NOT IN (SELECT id FROM products)").get())).toBe(0);
  });

  it("finds a row whose parent is gone (written with the foreign keys off); --fix leaves it out of the fresh database only", async () => {
    const dir = await formatThreeDir();
    onDatabase(dir, (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      db.prepare("INSERT INTO product_images (id, product_id, url, media_type, display_order, media_path, bytes, created_at) VALUES ('i-lost', 'p-gone', 'https://x.test/a.png', 'image/png', 0, NULL, NULL, '2026-12-01T09:00:00.000Z')").run();
    });
    const report = await doctor(dir);
    expect(report.problems).toEqual([expect.objectContaining({ check: "foreign_key", key: expect.stringMatching(/^product_images row \d+$/), fixable: true })]);
    const fixed = await doctor(dir, true);
    expect(fixed.fixed[0]).toContain("leaving out the rows the schema refused (1 of product_images)");
    expect((await doctor(dir)).problems).toEqual([]);
    expect(count(dir, "product_images")).toBe(3);
    const aside = readdirSync(dir).find((name) => name.startsWith("lp.db.before-fix-") && !name.endsWith("-wal") && !name.endsWith("-shm"))!;
    const old = openSqlite(join(dir, aside), { mustExist: true, readOnly: true });
    expect(prepareColumn<[], number>(old, "SELECT count(*) FROM product_images WHERE id = 'i-lost'").get()).toBe(1);
    old.close();
  });

  it("finds media a row names that is missing (not fixable) and orphans; --fix quarantines the orphans, never deleting them, and leaves drawn media alone", async () => {
    const dir = await formatThreeDir();
    const named = onDatabase(dir, (db) => prepareColumn<[], string>(db, "SELECT media_path FROM product_images WHERE media_path IS NOT NULL ORDER BY media_path").all());
    unlinkSync(join(dir, "media", ...named[0]!.split("/")));
    for (const path of ["products/nobody/x.png", "pages/gone/hero.svg", "placeholders/acct_dev/p.svg"]) {
      mkdirSync(join(dir, "media", ...path.split("/").slice(0, -1)), { recursive: true });
      writeFileSync(join(dir, "media", ...path.split("/")), path);
    }
    const report = await doctor(dir);
    expect(report.problems.map((p) => [p.check, p.key, p.fixable]).sort()).toEqual([
      ["media", named[0], false],
      ["orphan", "pages/gone/hero.svg", true],
      ["orphan", "products/nobody/x.png", true],
    ]);
    const fixed = await doctor(dir, true);
    expect(fixed.fixed).toEqual([
      `quarantined pages/gone/hero.svg: moved to ${join(dir, QUARANTINE, "media", "pages", "gone", "hero.svg")}`,
      `quarantined products/nobody/x.png: moved to ${join(dir, QUARANTINE, "media", "products", "nobody", "x.png")}`,
    ].sort());
    expect(readFileSync(join(dir, QUARANTINE, "media", "products", "nobody", "x.png"), "utf8")).toBe("products/nobody/x.png");
    expect(existsSync(join(dir, "media", "products", "nobody", "x.png"))).toBe(false);
    expect(existsSync(join(dir, "media", "placeholders", "acct_dev", "p.svg"))).toBe(true);
    const after = await doctor(dir);
    expect(unfixedProblems(after).map((p) => p.key)).toEqual([named[0]]);
    expect(after.problems).toHaveLength(1);
  });

  it("writes a missing marker with --fix, stops at a newer format, and leaves a format-2 database to lp serve", async () => {
    const dir = await formatThreeDir();
    rmSync(join(dir, "format.json"));
    expect((await doctor(dir)).problems).toEqual([expect.objectContaining({ check: "format", fixable: true })]);
    expect((await doctor(dir, true)).fixed).toEqual([`wrote ${join(dir, "format.json")}: format 3`]);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toEqual({ format: 3, written_by: "lp test" });
    expect((await doctor(dir)).problems).toEqual([]);

    writeFileSync(join(dir, "format.json"), "{ not json");
    const unreadable = await doctor(dir, true);
    expect(unreadable.problems).toEqual([expect.objectContaining({ check: "format", fixable: false, message: expect.stringContaining("is not valid JSON: --fix does not guess a format") })]);
    expect(readFileSync(join(dir, "format.json"), "utf8")).toBe("{ not json");

    writeFileSync(join(dir, "format.json"), '{"format": 4, "written_by": "lp 99.0.0"}\n');
    const newer = await doctor(dir, true);
    expect(newer.problems).toEqual([expect.objectContaining({ check: "format", fixable: false, message: expect.stringContaining("upgrade lp") })]);
    expect(newer.fixed).toEqual([]);

    const old = tempDir("doctor-format-2");
    cpSync(fixture, old, { recursive: true });
    expect((await doctor(old)).problems).toEqual([expect.objectContaining({ check: "format", fixable: false, message: expect.stringContaining("lp serve migrates it") })]);
  });

  it("finds files others can read; --fix tightens them", async () => {
    const dir = await formatThreeDir();
    chmodSync(join(dir, "lp.db"), 0o644);
    chmodSync(join(dir, "media"), 0o755);
    const found = (await doctor(dir)).problems;
    // The log and shared-memory files a reader opens beside the database take its mode.
    const loose = ["lp.db", "lp.db-shm", "lp.db-wal", "media"].filter((name) => existsSync(join(dir, name)));
    expect(loose).toEqual(expect.arrayContaining(["lp.db", "media"]));
    expect(found.map((p) => [p.check, p.key]).sort()).toEqual(loose.map((name) => ["mode", name]));
    expect((await doctor(dir, true)).fixed.sort()).toEqual(loose.map((name) => `chmod ${name === "media" ? 700 : 600} ${join(dir, name)}`));
    expect((await doctor(dir)).problems).toEqual([]);
  });
});
