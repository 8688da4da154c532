import { spawn } from "node:child_process";
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@lp/server";
import { openSqlite, prepareColumn, pragmaValue } from "../../../../core/src/storage/sqlite.js";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../main.js";
import { createFakeIo } from "../../testing/fake-io.js";

const image = readFileSync(new URL("../../../../fixtures/images/apron.png", import.meta.url));
const fixtures = new URL("../../../../test/formats/data-dirs/", import.meta.url).pathname;
const ORPHAN = "products/00000000-0000-4000-8000-000000000000/lost.png";

async function doctor(...args: string[]) {
  const fake = createFakeIo({ env: {} });
  const code = await main(["doctor", ...args], fake.io);
  return { code, out: fake.stdout, err: fake.stderr };
}

/** Three products (the first with an uploaded image) written by a real server, which is then stopped. */
async function seed(server: RunningServer): Promise<{ account: string; ids: string[]; mediaPath: string }> {
  const account = server.credentials.account_id;
  const ids: string[] = [];
  let mediaPath = "";
  for (const [i, title] of ["Apron", "Torn", "Mug"].entries()) {
    const product = await server.core.products.create(account, { title, price: 9, product_type: "physical" }, i === 0 ? [{ filename: "apron.png", bytes: image }] : []);
    ids.push(product.id);
    if (i === 0) mediaPath = new URL(product.images[0]!.url).pathname.replace(/^\/media\//, "");
  }
  await server.close();
  return { account, ids, mediaPath };
}

const serve = (dataDir: string) => startServer({ storage: "sqlite", dataDir, port: 0, log: null, admin: false });

/** Runs SQL on a data dir's database with the server stopped, as `sqlite3 lp.db` would. */
function onDatabase<T>(dir: string, work: (db: ReturnType<typeof openSqlite>) => T): T {
  const db = openSqlite(join(dir, "lp.db"), { mustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** The titles of the products a server started on `dir` lists. */
async function titlesIn(dir: string, account: string): Promise<string[]> {
  const server = await serve(dir);
  try {
    return (await server.core.products.list(account, { sort: "-created_at", per_page: 20 } as never)).data.map((p) => p.title).sort();
  } finally {
    await server.close();
  }
}

describe("lp doctor --data-dir", () => {
  const dirs: string[] = [];
  const tempDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `lp-doctor-${name}-`));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("states the format; finds a row whose parent is gone, missing and orphan media, loose modes and a missing marker; --fix repairs all but the missing media, keeping the old database", async () => {
    const dir = tempDir("found");
    const { account, mediaPath } = await seed(await serve(dir));
    const sound = await doctor("--data-dir", dir);
    expect(sound.code).toBe(0);
    expect(sound.out).toMatch(new RegExp(`^lp doctor: ${dir}: format 3, \\d+ row\\(s\\) read\\n`));
    expect(sound.out).toContain("sound: no problems found");

    const db = join(dir, "lp.db");
    // An image row naming a product that is not there, written as a tool with the foreign keys off would.
    onDatabase(dir, (sqlite) => {
      sqlite.exec("PRAGMA foreign_keys = OFF");
      sqlite.prepare("INSERT INTO product_images (id, product_id, url, media_type, display_order, media_path, bytes, created_at) VALUES ('i-lost', 'p-gone', 'https://x.test/a.png', 'image/png', 0, NULL, NULL, '2026-03-01T10:00:00.000Z')").run();
    });
    unlinkSync(join(dir, "media", ...mediaPath.split("/")));
    mkdirSync(join(dir, "media", ...ORPHAN.split("/").slice(0, -1)), { recursive: true });
    writeFileSync(join(dir, "media", ...ORPHAN.split("/")), image);
    chmodSync(db, 0o644);
    unlinkSync(join(dir, "format.json"));

    const found = await doctor("--data-dir", dir);
    expect(found.code).toBe(1);
    expect(found.out).toContain(`lp doctor: ${dir}: no format marker, `);
    expect(found.out).toMatch(/\n {2}foreign_key product_images row \d+ {2}\(.*lp\.db\): names a row of products that is not there/);
    expect(found.out).toContain(`  media       ${mediaPath}  (${join(dir, "media", ...mediaPath.split("/"))}): is named by a product image, and is missing`);
    expect(found.out).toContain(`  orphan      ${ORPHAN}  (`);
    expect(found.out).toContain(`  mode        lp.db  (${db}): mode 644, readable by others`);
    expect(found.out).toContain(`  format      format.json  (${join(dir, "format.json")}): no format marker, but lp.db is in format 3`);
    const count = found.out.split("\n").filter((line) => line.startsWith("  ")).length;
    expect(found.out).toContain(`${count} problem(s); run again with --fix to repair ${count - 1} of them (`);

    const fixed = await doctor("--data-dir", dir, "--fix");
    // The missing image cannot be made again: still exit 1, naming it.
    expect(fixed.code).toBe(1);
    expect(fixed.err).toContain("1 problem(s) left that --fix cannot repair");
    const [aside] = readdirSync(dir).filter((name) => name.startsWith("lp.db.before-fix-") && !/-(wal|shm)$/.test(name));
    expect(fixed.out).toContain(`the old database is kept as ${join(dir, aside!)}`);
    expect(fixed.out).toContain(`  fixed  quarantined ${ORPHAN}: moved to ${join(dir, "quarantine", "media", ...ORPHAN.split("/"))}`);
    // The refused row stays in the old database, never deleted; the fresh one is lp's.
    const old = openSqlite(join(dir, aside!), { readOnly: true, mustExist: true });
    expect(prepareColumn<[], number>(old, "SELECT count(*) FROM product_images WHERE id = 'i-lost'").get()).toBe(1);
    old.close();
    expect(statSync(db).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toMatchObject({ format: 3 });

    const after = await doctor("--data-dir", dir, "--json");
    expect(JSON.parse(after.out).problems.map((p: { check: string }) => p.check)).toEqual(["media"]);
    expect(await titlesIn(dir, account)).toEqual(["Apron", "Mug", "Torn"]);
  });

  it("reports SQLite's own integrity check, and --fix copies every readable row out of a damaged file", async () => {
    const dir = tempDir("broken");
    const { account } = await seed(await serve(dir));
    // An index page overwritten (a disk error): the rows are intact, the index that lists them is not.
    const root = onDatabase(dir, (db) => prepareColumn<[], number>(db, "SELECT rootpage FROM sqlite_master WHERE name = 'products_by_created_at'").get()!);
    const pageSize = onDatabase(dir, (db) => pragmaValue(db, "page_size") as number);
    const fd = openSync(join(dir, "lp.db"), "r+");
    writeSync(fd, Buffer.alloc(pageSize, 0x55), 0, pageSize, (root - 1) * pageSize);
    closeSync(fd);
    const found = await doctor("--data-dir", dir);
    expect(found.code).toBe(1);
    expect(found.out).toMatch(/\n {2}database {4}lp\.db {2}\(.*\): integrity check: /);
    const fixed = await doctor("--data-dir", dir, "--fix");
    expect(fixed.code).toBe(0);
    expect(fixed.out).toMatch(/fixed {2}copied \d+ readable rows into a fresh /);
    expect((await doctor("--data-dir", dir)).code).toBe(0);
    expect(await titlesIn(dir, account)).toEqual(["Apron", "Mug", "Torn"]);
  });

  it.each([
    ["format-1", 1, "a file per record"],
    ["format-2", 2, "JSON records in one table"],
  ])("names a %s dir, which lp serve migrates; --fix migrates it now and checks the result", async (fixture, format, what) => {
    const dir = tempDir(fixture);
    cpSync(join(fixtures, fixture), dir, { recursive: true });
    const found = await doctor("--data-dir", dir);
    expect(found.code).toBe(1);
    expect(found.err).toContain(`lp doctor: ${dir} is in format ${format} (${what}); lp serve migrates it to format 3 at its next start, or run lp doctor --fix to migrate it now.`);
    expect(found.out).toBe("");
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8")).format).toBe(format);

    const fixed = await doctor("--data-dir", dir, "--fix");
    expect(fixed.err).toContain(`storage: migrated ${dir} to format 3: `);
    expect(fixed.err).toContain(`the format-2 database of ${dir} is kept as ${join(dir, "format-2", "lp.db")}`);
    expect(fixed.out).toMatch(new RegExp(`^lp doctor: ${dir}: format 3, `));
    // The files git checked out are readable by others: --fix tightens them, and nothing else is wrong.
    expect(fixed.out.split("\n").filter((line) => line.startsWith("  ") && !line.startsWith("  fixed") && !line.startsWith("  mode"))).toEqual([]);
    expect(fixed.code).toBe(0);
    expect((await doctor("--data-dir", dir)).code).toBe(0);
  });

  it("says a newer or unreadable format marker needs a person: no --fix offered, and --fix leaves it as it was", async () => {
    const dir = tempDir("format");
    const marker = join(dir, "format.json");
    const newer = '{"format": 99, "written_by": "lp 99.0.0"}\n';
    writeFileSync(marker, newer, { mode: 0o600 });
    const found = await doctor("--data-dir", dir);
    expect(found.code).toBe(1);
    expect(found.out).toContain(`  format      format.json  (${marker}): format 99 is newer than this lp reads (3): upgrade lp to check this dir (nothing else was checked)\n`);
    expect(found.out).toMatch(/\n1 problem\(s\), none that --fix repairs: see each line for what to do\n$/);
    const fixed = await doctor("--data-dir", dir, "--fix");
    expect(fixed.code).toBe(1);
    expect(fixed.err).toContain("1 problem(s) left that --fix cannot repair");
    expect(readFileSync(marker, "utf8")).toBe(newer);

    writeFileSync(marker, '{"format": "one"}');
    const unreadable = await doctor("--data-dir", dir);
    expect(unreadable.code).toBe(1);
    expect(unreadable.out).toContain(`  format      format.json  (${marker}): ${marker} does not name a format ({"format": N, "written_by": "lp X.Y.Z"}): --fix does not guess a format`);
    expect(unreadable.out).not.toContain("run again with --fix");
    expect(JSON.parse((await doctor("--data-dir", dir, "--json")).out).problems).toEqual([expect.objectContaining({ check: "format", key: "format.json", fixable: false })]);
  });

  it("refuses --fix on a data dir a running server holds, and asks for a data dir", async () => {
    const served = tempDir("served");
    const server = await startServer({ storage: "sqlite", dataDir: served, port: 0, log: null, admin: false, storageLog: () => {} });
    try {
      const refused = await doctor("--data-dir", served, "--fix");
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`lp serve (pid ${process.pid}) is using ${served}; stop it before lp doctor --fix`);
    } finally {
      await server.close();
    }
    // Released at the server's stop.
    expect((await doctor("--data-dir", served, "--fix")).code).toBe(0);

    const held = tempDir("held");
    // An older lp's lock, a pid in lp.lock, of a process that is alive.
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(held, "lp.lock"), String(holder.pid));
      const refused = await doctor("--data-dir", held, "--fix");
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`lp serve (pid ${holder.pid}) is using ${held}; stop it before lp doctor --fix`);
      expect(existsSync(join(held, "format.json"))).toBe(false);
    } finally {
      holder.kill("SIGKILL");
    }
    const none = await doctor();
    expect(none.code).toBe(2);
    expect(none.err).toContain("lp doctor needs the data dir to check: --data-dir DIR");
    // Redis is no store of lp any more: its flag is gone.
    expect((await doctor("--redis-url", "redis://127.0.0.1:1/0")).code).toBe(2);
  });
});
