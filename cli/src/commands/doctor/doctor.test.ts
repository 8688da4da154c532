import { spawn } from "node:child_process";
import { chmodSync, closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer, type RunningServer } from "@lp/server";
import { openSqlite, prepareColumn, pragmaValue, type SqliteValue } from "../../../../core/src/storage/sqlite.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAdmin } from "../../../../core/src/testing/redis-admin.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../../../core/src/testing/redis-server.js";
import { main } from "../../main.js";
import { createFakeIo } from "../../testing/fake-io.js";

if (!redisAvailable) console.warn(redisSkipReason("lp doctor on Redis"));

const image = readFileSync(new URL("../../../../fixtures/images/apron.png", import.meta.url));

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

/** Runs SQL on a data dir's database with the server stopped, as `sqlite3 lp.db` would. */
function sql(dir: string, statement: string, ...params: SqliteValue[]) {
  const db = openSqlite(join(dir, "lp.db"));
  try {
    return db.prepare(statement).run(...params);
  } finally {
    db.close();
  }
}

describe("lp doctor --data-dir", () => {
  const dir = mkdtempSync(join(tmpdir(), "lp-doctor-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("states the format; finds damaged records, missing and orphan media, loose modes and a missing marker; --fix copies what is readable into a fresh database and keeps the old one", async () => {
    const { account, ids, mediaPath } = await seed(await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false }));
    const sound = await doctor("--data-dir", dir);
    expect(sound.code).toBe(0);
    expect(sound.out).toContain(`lp doctor: ${dir}: format 2, `);
    expect(sound.out).toContain("sound: no problems found");

    const db = join(dir, "lp.db");
    const torn = `acct:${account}:products:${ids[1]}`;
    sql(dir, "UPDATE records SET value = ? WHERE key = ?", '{"id":"cut sh', torn);
    sql(dir, "DELETE FROM media WHERE key = ?", mediaPath.split("/").join(":"));
    sql(dir, "INSERT INTO media (key, bytes) VALUES (?, ?)", "products:00000000-0000-4000-8000-000000000000:lost.png", image);
    chmodSync(db, 0o644);
    unlinkSync(join(dir, "format.json"));

    const found = await doctor("--data-dir", dir);
    expect(found.code).toBe(1);
    expect(found.out).toContain(`lp doctor: ${dir}: no format marker, `);
    expect(found.out).toContain(`record ${torn}  (${db}, key ${torn}): not valid JSON`);
    expect(found.out).toMatch(new RegExp(`media  acct:${account}:products:${ids[0]} .*names media ${mediaPath}, which is missing`));
    expect(found.out).toContain("orphan products/00000000-0000-4000-8000-000000000000/lost.png");
    expect(found.out).toContain(`(${db}): mode 644, readable by others`);
    expect(found.out).toContain(`format format.json  (${join(dir, "format.json")}): no format marker`);
    // lp.db-wal and lp.db-shm take lp.db's mode (SQLite gives them the database's): 7 problems, the missing image the one --fix cannot repair.
    expect(found.out).toContain(`(${db}-wal): mode 644, readable by others`);
    expect(found.out).toContain("7 problem(s); run again with --fix to repair 6 of them (");

    const fixed = await doctor("--data-dir", dir, "--fix");
    // The missing image cannot be made again: still exit 1, naming it.
    expect(fixed.code).toBe(1);
    const [aside] = readdirSync(dir).filter((name) => name.startsWith("lp.db.before-fix-"));
    expect(aside).toBeDefined();
    expect(fixed.out).toContain(`the old database is kept as ${join(dir, aside!)}`);
    // The torn record and the orphan are kept in the old database, never deleted.
    const old = openSqlite(join(dir, aside!), { readOnly: true });
    expect(prepareColumn<[string], string>(old, "SELECT value FROM records WHERE key = ?").get(torn)).toBe('{"id":"cut sh');
    old.close();
    expect(statSync(db).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, "format.json"), "utf8"))).toMatchObject({ format: 2 });

    const after = await doctor("--data-dir", dir, "--json");
    expect(JSON.parse(after.out).problems.map((p: { check: string }) => p.check)).toEqual(["media"]);

    const server = await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false });
    try {
      const list = await server.core.products.list(account, { sort: "-created_at", per_page: 20 } as never);
      expect(list.data.map((p) => p.title).sort()).toEqual(["Apron", "Mug"]);
    } finally {
      await server.close();
    }
  });

  it("finds a record whose text is JSON null (a damaged record, not an absent one), and --fix quarantines it", async () => {
    const nulled = mkdtempSync(join(tmpdir(), "lp-doctor-null-"));
    try {
      const { account, ids } = await seed(await startServer({ storage: "sqlite", dataDir: nulled, port: 0, log: null, admin: false }));
      const key = `acct:${account}:products:${ids[1]}`;
      expect(sql(nulled, "UPDATE records SET value = 'null' WHERE key = ?", key).changes).toBe(1);
      const found = await doctor("--data-dir", nulled);
      expect(found.code).toBe(1);
      expect(found.out).toContain(`record ${key}  (${join(nulled, "lp.db")}, key ${key}): JSON null, not a record`);
      const fixed = await doctor("--data-dir", nulled, "--fix");
      expect(fixed.out).toContain(`quarantined ${key}`);
      expect((await doctor("--data-dir", nulled)).code).toBe(0);
    } finally {
      rmSync(nulled, { recursive: true, force: true });
    }
  });

  it("reports SQLite's own integrity check, and --fix copies every readable row out of a damaged file", async () => {
    const broken = mkdtempSync(join(tmpdir(), "lp-doctor-broken-"));
    try {
      const { account } = await seed(await startServer({ storage: "sqlite", dataDir: broken, port: 0, log: null, admin: false }));
      // An index page overwritten (a disk error): the rows are intact, the index that lists them is not.
      const db = openSqlite(join(broken, "lp.db"));
      const root = prepareColumn<[], number>(db, "SELECT rootpage FROM sqlite_master WHERE name = 'records_by_created'").get()!;
      const pageSize = pragmaValue(db, "page_size") as number;
      db.close();
      const fd = openSync(join(broken, "lp.db"), "r+");
      writeSync(fd, Buffer.alloc(pageSize, 0x55), 0, pageSize, (root - 1) * pageSize);
      closeSync(fd);
      const found = await doctor("--data-dir", broken);
      expect(found.code).toBe(1);
      expect(found.out).toMatch(/database lp\.db .*integrity check: /);
      const fixed = await doctor("--data-dir", broken, "--fix");
      expect(fixed.out).toMatch(/copied \d+ readable record\(s\) and 1 media file\(s\) into a fresh/);
      expect((await doctor("--data-dir", broken)).code).toBe(0);
      const server = await startServer({ storage: "sqlite", dataDir: broken, port: 0, log: null, admin: false });
      try {
        const list = await server.core.products.list(account, { sort: "-created_at", per_page: 20 } as never);
        expect(list.data.map((p) => p.title).sort()).toEqual(["Apron", "Mug", "Torn"]);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it("names a format-1 dir, and --fix migrates it", async () => {
    const old = mkdtempSync(join(tmpdir(), "lp-doctor-format-1-"));
    try {
      cpSync(new URL("../../../../test/formats/data-dirs/format-1/", import.meta.url).pathname, old, { recursive: true });
      const found = await doctor("--data-dir", old);
      expect(found.code).toBe(1);
      expect(found.err).toContain("is in format 1 (a file per record); lp serve migrates it to format 2 at its next start");
      const fixed = await doctor("--data-dir", old, "--fix");
      expect(fixed.err).toContain("storage: migrated");
      expect(fixed.code).toBe(0);
      expect(fixed.out).toContain("format 2");
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });

  it("says a newer or unreadable format marker needs a person: no --fix offered, and --fix leaves it as it was", async () => {
    const store = mkdtempSync(join(tmpdir(), "lp-doctor-format-"));
    try {
      const marker = join(store, "format.json");
      const newer = '{"format": 99, "written_by": "lp 99.0.0"}\n';
      writeFileSync(marker, newer, { mode: 0o600 });
      const found = await doctor("--data-dir", store);
      expect(found.code).toBe(1);
      expect(found.out).toContain(`  format format.json  (${marker}): format 99, written by lp 99.0.0, is newer than this lp reads (2): upgrade lp to check this store (nothing else was checked)\n`);
      expect(found.out).toMatch(/\n1 problem\(s\), none that --fix repairs: see each line for what to do\n$/);
      expect(found.out).not.toContain("run again with --fix");
      const fixed = await doctor("--data-dir", store, "--fix");
      expect(fixed.code).toBe(1);
      expect(fixed.err).toContain("1 problem(s) left that --fix cannot repair");
      expect(readFileSync(marker, "utf8")).toBe(newer);

      writeFileSync(marker, '{"format": "one"}');
      const unreadable = await doctor("--data-dir", store);
      expect(unreadable.code).toBe(1);
      expect(unreadable.out).toContain(`  format format.json  (${marker}): not a format marker ({"format": N, "written_by": "lp X.Y.Z"}); --fix does not guess a format`);
      expect(unreadable.out).not.toContain("run again with --fix");
      expect(JSON.parse((await doctor("--data-dir", store, "--json")).out).problems).toEqual([expect.objectContaining({ check: "format", key: "format.json", fixable: false })]);
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  });

  it("refuses --fix on a data dir a running server holds, and asks for one store", async () => {
    const held = mkdtempSync(join(tmpdir(), "lp-doctor-held-"));
    // Another live process holding the data-dir lock, as a running lp serve does.
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(held, "lp.lock"), String(holder.pid));
      const refused = await doctor("--data-dir", held, "--fix");
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`lp serve (pid ${holder.pid}) is using ${held}; stop it before lp doctor --fix`);
      expect(existsSync(join(held, "format.json"))).toBe(false);
    } finally {
      holder.kill("SIGKILL");
      rmSync(held, { recursive: true, force: true });
    }
    expect((await doctor()).code).toBe(2);
    expect((await doctor("--data-dir", "x", "--redis-url", "redis://127.0.0.1:1/0")).code).toBe(2);
  });
});

describe.skipIf(!redisAvailable)("lp doctor --redis-url", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer({ appendfsync: "no" });
  });
  afterAll(async () => redis?.dispose());

  it("finds a damaged record and list indexes out of step; --fix renames it to the quarantine prefix and rebuilds them", async () => {
    const { account, ids } = await seed(await startServer({ storage: "redis", redisUrl: redis.url, redisPrefix: "doc:", port: 0, log: null, admin: false }));
    const args = ["--redis-url", redis.url, "--redis-prefix", "doc:"];
    expect((await doctor(...args)).code).toBe(0);

    const admin = redisAdmin(redis.url);
    const products = `acct:${account}:products`;
    try {
      await admin.call("SET", `doc:d:${products}:${ids[1]}`, "");
      await admin.call("SREM", `doc:dl:${products}`, `${products}:${ids[2]}`);
      await admin.call("SADD", `doc:dl:${products}`, `${products}:gone`);
      const found = await doctor(...args);
      expect(found.code).toBe(1);
      expect(found.out).toContain(`record ${products}:${ids[1]}  (Redis key doc:d:${products}:${ids[1]}): empty`);
      expect(found.out).toContain(`index  ${products}:${ids[2]}  (Redis set doc:dl:${products}): missing from the list index`);
      expect(found.out).toContain(`index  ${products}:gone  (Redis set doc:dl:${products}): listed, but no readable record is there`);

      const fixed = await doctor(...args, "--fix");
      expect(fixed.code).toBe(0);
      expect(await admin.call("EXISTS", `doc:quarantine:${products}:${ids[1]}`)).toBe(1);
      expect(await admin.call("EXISTS", `doc:d:${products}:${ids[1]}`)).toBe(0);
      expect((await doctor(...args)).code).toBe(0);
    } finally {
      admin.close();
    }
    const server = await startServer({ storage: "redis", redisUrl: redis.url, redisPrefix: "doc:", port: 0, log: null, admin: false });
    try {
      const list = await server.core.products.list(account, { sort: "-created_at", per_page: 20 } as never);
      expect(list.data.map((p) => p.title).sort()).toEqual(["Apron", "Mug"]);
    } finally {
      await server.close();
    }
  });
});
