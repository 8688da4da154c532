import { spawnSync } from "node:child_process";
import { chownSync, mkdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ERROR_STATUS } from "@lp/contract";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sqliteCodeOf } from "../storage/sqlite.js";
import { createStorageHealth } from "../storage/storage-faults.js";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../testing/postgres-server.js";
import { fillDisk, mountSmallDisk, whySmallDiskUnavailable, type SmallDisk } from "../testing/small-disk.js";
import { useTempDirs } from "../testing/temp-dirs.js";
import { openDatabase, type Database } from "./database.js";
import { isUniqueViolation } from "./errors.js";
import { isRetryableConflict, toDatabaseFault } from "./faults.js";

const at = "2026-03-01T10:00:00.000Z";
const account = (account_id: string) => ({ account_id, environment: "production" as const, currency: "USD", page_quota: 100, product_quota: 10_000, media_quota_bytes: 1024, created_at: at, updated_at: at });

/** A table of the test's own, of rows large enough to fill a small disk in a few hundred inserts. */
async function createRowsTable(database: Database, tablespace?: string): Promise<void> {
  await sql`CREATE TABLE fault_rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)${tablespace ? sql.raw(` TABLESPACE ${tablespace}`) : sql``}`.execute(database.db);
}
let nextRow = 0;
const insertRow = (database: Database) => sql`INSERT INTO fault_rows (id, body) VALUES (${++nextRow}, ${"x".repeat(4000)})`.execute(database.db);
const countRows = async (database: Database) => Number((await sql<{ n: number }>`SELECT count(*) AS n FROM fault_rows`.execute(database.db)).rows[0]!.n);

/** Inserts rows until the database refuses one: its error, and how many went in before it. */
async function insertUntilRefused(database: Database): Promise<{ error: unknown; inserted: number }> {
  for (let inserted = 0; inserted < 2000; inserted++) {
    const error = await insertRow(database).then(
      () => null,
      (e: unknown) => e,
    );
    if (error) return { error, inserted };
  }
  throw new Error("the disk never refused a row");
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the query to fail");
    },
    (e: unknown) => e,
  );

const noSmallDisk = whySmallDiskUnavailable();
if (noSmallDisk) console.warn(`[lp] skipping the SQLite full and read-only disk tests and PostgreSQL's full tablespace: ${noSmallDisk}`);

describe.skipIf(noSmallDisk !== null)("SQLite on a real small disk (tmpfs)", () => {
  let small: SmallDisk;
  const filler = () => join(small.dir, "filler");
  beforeAll(() => {
    small = mountSmallDisk("2m", "0700");
  });
  afterEach(() => rmSync(filler(), { force: true }));
  afterAll(() => small?.unmount());

  it("a full disk refuses writes with disk_full (507); reads go on; once there is room the same Database writes again", async () => {
    const database = await openDatabase({ kind: "sqlite", file: join(small.dir, "full.db") });
    try {
      await database.db.insertInto("accounts").values(account("acct_kept")).execute();
      await createRowsTable(database);
      fillDisk(filler());
      const { error, inserted } = await insertUntilRefused(database);
      expect(sqliteCodeOf(error)).toBe("SQLITE_FULL");
      const fault = toDatabaseFault(error);
      expect(fault).toMatchObject({ reason: "disk_full", code: "insufficient_storage", sysCode: "SQLITE_FULL", details: { reason: "disk_full", retry_after_seconds: 30 } });
      expect(ERROR_STATUS[fault!.code]).toBe(507);
      // Asked, the file system names its own errno.
      expect(toDatabaseFault(error, { dir: small.dir })).toMatchObject({ reason: "disk_full", sysCode: "ENOSPC" });

      expect(await database.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_kept" }]);
      expect(await countRows(database)).toBe(inserted);

      rmSync(filler());
      await insertRow(database);
      expect(await countRows(database)).toBe(inserted + 1);
    } finally {
      await database.close();
    }
  });

  it("opened on a full disk, SQLite answers an I/O error (its shared memory cannot grow): disk_full once the disk is asked", async () => {
    const file = join(small.dir, "open-full.db");
    const first = await openDatabase({ kind: "sqlite", file });
    await first.db.insertInto("accounts").values(account("acct_kept")).execute();
    await first.close();
    fillDisk(filler());
    const error = await errorOf(openDatabase({ kind: "sqlite", file }));
    expect(sqliteCodeOf(error)).toBe("SQLITE_IOERR");
    // SQLite does not say which errno it saw: alone, an I/O error is no fault lp can name.
    expect(toDatabaseFault(error)).toBeNull();
    expect(toDatabaseFault(error, { dir: small.dir })).toMatchObject({ reason: "disk_full", code: "insufficient_storage", sysCode: "ENOSPC" });

    rmSync(filler());
    const again = await openDatabase({ kind: "sqlite", file });
    expect(await again.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_kept" }]);
    await again.close();
  });

  it("a read-only disk at open is read_only (503) once the disk is asked; writable again, the file opens with its rows", async () => {
    const file = join(small.dir, "read-only.db");
    const first = await openDatabase({ kind: "sqlite", file });
    await first.db.insertInto("accounts").values(account("acct_kept")).execute();
    await first.close();
    small.remount("ro");
    let error: unknown;
    let asked: ReturnType<typeof toDatabaseFault>;
    try {
      error = await errorOf(openDatabase({ kind: "sqlite", file }));
      asked = toDatabaseFault(error, { dir: small.dir });
    } finally {
      small.remount("rw");
    }
    expect(sqliteCodeOf(error)).toBe("SQLITE_CANTOPEN");
    // SQLite alone cannot tell a read-only disk from a forbidden file; the file system can.
    expect(toDatabaseFault(error)).toMatchObject({ reason: "permission_denied", code: "storage_unavailable", sysCode: "SQLITE_CANTOPEN" });
    expect(asked).toMatchObject({ reason: "read_only", code: "storage_unavailable", sysCode: "EROFS", details: { retry_after_seconds: 30 } });
    expect(ERROR_STATUS[asked!.code]).toBe(503);
    const again = await openDatabase({ kind: "sqlite", file });
    expect(await again.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_kept" }]);
    await again.close();
  });
});

describe("SQLite faults and conflicts", () => {
  const opened: Database[] = [];
  const tempDir = useTempDirs(async () => {
    await Promise.all(opened.splice(0).map((d) => d.close()));
  });
  const open = async (file: string) => {
    const database = await openDatabase({ kind: "sqlite", file });
    opened.push(database);
    return database;
  };

  it("a read-only database (query_only) refuses writes with read_only (503); reads go on; writable again, writes go through", async () => {
    const database = await open(join(tempDir("faults"), "lp.db"));
    await database.db.insertInto("accounts").values(account("acct_kept")).execute();
    await sql`PRAGMA query_only = ON`.execute(database.db);
    const error = await errorOf(database.db.insertInto("accounts").values(account("acct_new")).execute());
    expect(sqliteCodeOf(error)).toBe("SQLITE_READONLY");
    const fault = toDatabaseFault(error);
    expect(fault).toMatchObject({ reason: "read_only", code: "storage_unavailable", sysCode: "SQLITE_READONLY" });
    expect(ERROR_STATUS[fault!.code]).toBe(503);
    expect(await database.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_kept" }]);
    await sql`PRAGMA query_only = OFF`.execute(database.db);
    await database.db.insertInto("accounts").values(account("acct_new")).execute();
    expect(await database.db.selectFrom("accounts").select("account_id").orderBy("account_id").execute()).toEqual([{ account_id: "acct_kept" }, { account_id: "acct_new" }]);
  });

  it("a transaction that read and would write after another connection's commit is a conflict to retry, not a fault", async () => {
    const file = join(tempDir("faults"), "lp.db");
    const [a, b] = [await open(file), await open(file)];
    const error = await errorOf(
      a.transaction(async (tx) => {
        await tx.selectFrom("accounts").selectAll().execute();
        await b.db.insertInto("accounts").values(account("acct_b")).execute();
        await tx.insertInto("accounts").values(account("acct_a")).execute();
      }),
    );
    expect(sqliteCodeOf(error)).toBe("SQLITE_BUSY");
    expect(isRetryableConflict(error)).toBe(true);
    expect(toDatabaseFault(error)).toBeNull();
    // Run again whole, it goes through.
    await a.transaction(async (tx) => {
      await tx.selectFrom("accounts").selectAll().execute();
      await tx.insertInto("accounts").values(account("acct_a")).execute();
    });
    expect(await a.db.selectFrom("accounts").select("account_id").orderBy("account_id").execute()).toEqual([{ account_id: "acct_a" }, { account_id: "acct_b" }]);
  });

  it("leaves a constraint's refusal alone: neither a fault nor a conflict", async () => {
    const database = await open(join(tempDir("faults"), "lp.db"));
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    const error = await errorOf(database.db.insertInto("accounts").values(account("acct_1")).execute());
    expect(isUniqueViolation(error)).toBe(true);
    expect(toDatabaseFault(error, { dir: tempDir("faults") })).toBeNull();
    expect(isRetryableConflict(error)).toBe(false);
  });
});

if (!postgresAvailable) console.warn(postgresSkipReason("the PostgreSQL fault tests"));

describe.skipIf(!postgresAvailable)("PostgreSQL faults", () => {
  let server: PostgresServer;
  const opened: Database[] = [];
  let pgDisk: SmallDisk | null = null;
  beforeAll(async () => {
    server = await startPostgresServer({ fsync: false });
  });
  afterEach(async () => {
    await server.restart();
    await Promise.all(opened.splice(0).map((d) => d.close().catch(() => {})));
  });
  afterAll(async () => {
    await server?.dispose();
    pgDisk?.unmount();
  });
  const open = async () => {
    const url = await server.createDatabase();
    const database = await openDatabase({ kind: "postgres", url });
    opened.push(database);
    return { database, url };
  };

  /**
   * Sends `text`. `running()` waits, by asking the server (through `watch`), until a backend runs it (true: the query is in flight,
   * not on its way) or until it failed first (false); `failed` is its error.
   */
  function send(database: Database, text: string, watch = database) {
    let settled = false;
    const failed = errorOf(sql.raw(text).execute(database.db)).finally(() => (settled = true));
    const running = async (): Promise<boolean> => {
      for (const until = performance.now() + 10_000; performance.now() < until; ) {
        if (settled) return false;
        const seen = await answered(() => sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = ${text} AND state = 'active'`.execute(watch.db));
        if (seen.rows[0]!.n > 0) return true;
      }
      throw new Error(`${text} never ran`);
    };
    return { failed, running };
  }

  /**
   * Runs `query`, once more if it fails as database_unavailable: a connection the server ended can be lent
   * once more before its close is seen, and fails the query it was lent for.
   */
  async function answered<T>(query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      if (toDatabaseFault(error)?.reason !== "database_unavailable") throw error;
      return query();
    }
  }

  it("a server stopped fails each query within 5 s as database_unavailable (503, Retry-After 1); restarted, the same Database answers", async () => {
    const { database } = await open();
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    const lines: string[] = [];
    const health = createStorageHealth({ where: `127.0.0.1:${server.port}`, log: (line) => lines.push(line), now: () => new Date(at), every: () => () => {} });

    const inFlight = send(database, "SELECT pg_sleep(30)");
    expect(await inFlight.running()).toBe(true);
    await server.stop();
    expect(toDatabaseFault(await inFlight.failed)).toMatchObject({ reason: "database_unavailable", sysCode: "57P01" });

    for (const query of [
      () => database.db.selectFrom("accounts").selectAll().execute(),
      () => database.db.insertInto("accounts").values(account("acct_2")).execute(),
      () => database.transaction((tx) => tx.selectFrom("accounts").selectAll().execute()),
    ]) {
      const started = performance.now();
      const error = await errorOf(query());
      expect(performance.now() - started).toBeLessThan(5000);
      const fault = toDatabaseFault(error);
      expect(fault).toMatchObject({ reason: "database_unavailable", code: "service_unavailable", sysCode: "ECONNREFUSED", details: { reason: "database_unavailable", retry_after_seconds: 1 } });
      expect(ERROR_STATUS[fault!.code]).toBe(503);
      health.refused(fault!);
    }
    expect(lines).toEqual([`storage: database unreachable at 127.0.0.1:${server.port} (ECONNREFUSED); requests refused until it answers again`]);
    expect(health.state()).toMatchObject({ reason: "database_unavailable", refused: 3 });

    await server.restart();
    await database.db.insertInto("accounts").values(account("acct_2")).execute();
    health.succeeded();
    expect(await database.db.selectFrom("accounts").select("account_id").orderBy("account_id").execute()).toEqual([{ account_id: "acct_1" }, { account_id: "acct_2" }]);
    expect(lines.at(-1)).toBe(`storage: requests accepted again at 127.0.0.1:${server.port} (database unreachable is over; 3 refused in 0 s)`);
  });

  it("a server that crashes under a query fails it as database_unavailable; after recovery the same Database answers", async () => {
    const { database } = await open();
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    // The suite's server does not wait for its log (synchronous_commit off): written out now, the schema and
    // the row outlive the crash.
    await sql`CHECKPOINT`.execute(database.db);
    const inFlight = send(database, "SELECT pg_sleep(30)");
    expect(await inFlight.running()).toBe(true);
    await server.stop({ hard: true });
    expect(toDatabaseFault(await inFlight.failed)).toMatchObject({ reason: "database_unavailable" });
    await server.restart();
    await database.db.insertInto("accounts").values(account("acct_2")).execute();
    expect(await database.db.selectFrom("accounts").select("account_id").orderBy("account_id").execute()).toEqual([{ account_id: "acct_1" }, { account_id: "acct_2" }]);
  });

  it("a backend the server ends fails its query as database_unavailable, and never the process: the pool goes on", async () => {
    const { database } = await open();
    for (let round = 1; round <= 3; round++) {
      const sleeping = `SELECT pg_sleep(30), ${round}`;
      let victim = send(database, sleeping);
      if (!(await victim.running())) {
        // Lent the connection ended the round before, whose close was not seen yet: it fails the same way.
        expect(toDatabaseFault(await victim.failed)).toMatchObject({ reason: "database_unavailable" });
        victim = send(database, sleeping);
        expect(await victim.running()).toBe(true);
      }
      await answered(() => sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = ${sleeping}`.execute(database.db));
      expect(toDatabaseFault(await victim.failed)).toMatchObject({ reason: "database_unavailable", sysCode: "57P01" });
    }
    for (let i = 0; i < 5; i++) expect((await answered(() => sql<{ one: number }>`SELECT 1 AS one`.execute(database.db))).rows).toEqual([{ one: 1 }]);
  });

  it("a server that accepts and never answers: the pool's connect timeout (5 s) fails the query, and the one waiting for the pool, as database_unavailable", { timeout: 15_000 }, async () => {
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = `postgres://postgres@127.0.0.1:${(silent.address() as { port: number }).port}/lp`;
      const database = await openDatabase({ kind: "postgres", url, maxConnections: 1 }, { migrate: false });
      opened.push(database);
      const started = performance.now();
      // The first waits on its connection; the second on the pool, whose one connection is the first's.
      const errors = await Promise.all([errorOf(sql`SELECT 1`.execute(database.db)), errorOf(sql`SELECT 2`.execute(database.db))]);
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThan(4500);
      expect(elapsed).toBeLessThan(6000);
      for (const error of errors) expect(toDatabaseFault(error)).toMatchObject({ reason: "database_unavailable", code: "service_unavailable", sysCode: "connect timeout" });
      expect(errors.map((e) => (e as Error).message)).toEqual(["Connection terminated due to connection timeout", "timeout exceeded when trying to connect"]);
    } finally {
      silent.close();
    }
  });

  it("too many connections (53300) is database_unavailable, not a full disk", async () => {
    const { database, url } = await open();
    const role = "lp_one_connection";
    await sql.raw(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`).execute(database.db);
    const limited = await openDatabase({ kind: "postgres", url: url.replace("postgres@", `${role}@`), maxConnections: 2 }, { migrate: false });
    opened.push(limited);
    const sleeping = "SELECT pg_sleep(30), 'limited'";
    const holding = send(limited, sleeping, database);
    expect(await holding.running()).toBe(true);
    const error = await errorOf(sql`SELECT 1`.execute(limited.db));
    expect(error).toMatchObject({ code: "53300" });
    expect(toDatabaseFault(error)).toMatchObject({ reason: "database_unavailable", code: "service_unavailable", sysCode: "53300" });
    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = ${sleeping}`.execute(database.db);
    await holding.failed;
  });

  it("a read-only database (as a standby is) refuses writes with database_unavailable (25006); reads go on", async () => {
    const { database, url } = await open();
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    await sql.raw(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET default_transaction_read_only = on`).execute(database.db);
    const standby = await openDatabase({ kind: "postgres", url }, { migrate: false });
    opened.push(standby);
    expect(await standby.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_1" }]);
    const error = await errorOf(standby.db.insertInto("accounts").values(account("acct_2")).execute());
    expect(toDatabaseFault(error)).toMatchObject({ reason: "database_unavailable", code: "service_unavailable", sysCode: "25006" });
  });

  it("a serialization failure (40001) and a deadlock (40P01) are conflicts to retry, not faults; a constraint is neither", async () => {
    const { database } = await open();
    await database.db.insertInto("accounts").values([account("acct_a"), account("acct_b")]).execute();
    const bump = (q: Database["db"], id: string) => q.updateTable("accounts").set((eb) => ({ page_quota: eb("page_quota", "+", 1) })).where("account_id", "=", id).execute();

    // Repeatable read: a row changed and committed by another since this transaction's snapshot.
    const serialization = await errorOf(
      database.db
        .transaction()
        .setIsolationLevel("repeatable read")
        .execute(async (tx) => {
          await tx.selectFrom("accounts").selectAll().execute();
          await bump(database.db, "acct_a");
          await bump(tx, "acct_a");
        }),
    );
    expect(serialization).toMatchObject({ code: "40001" });

    // Two transactions each holding the row the other wants next.
    let heldA!: () => void;
    let heldB!: () => void;
    const aHeld = new Promise<void>((resolve) => (heldA = resolve));
    const bHeld = new Promise<void>((resolve) => (heldB = resolve));
    const crossing = (first: string, second: string, held: () => void, other: Promise<void>) =>
      database.transaction(async (tx) => {
        await sql`SET LOCAL deadlock_timeout = '100ms'`.execute(tx);
        await bump(tx, first);
        held();
        await other;
        await bump(tx, second);
      });
    const outcomes = await Promise.allSettled([crossing("acct_a", "acct_b", heldA, bHeld), crossing("acct_b", "acct_a", heldB, aHeld)]);
    const deadlock = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason as unknown] : []));
    expect(deadlock).toHaveLength(1);
    expect(deadlock[0]).toMatchObject({ code: "40P01" });

    for (const error of [serialization, deadlock[0]]) {
      expect(isRetryableConflict(error)).toBe(true);
      expect(toDatabaseFault(error)).toBeNull();
    }
    const unique = await errorOf(database.db.insertInto("accounts").values(account("acct_a")).execute());
    expect(isUniqueViolation(unique)).toBe(true);
    expect(isRetryableConflict(unique)).toBe(false);
    expect(toDatabaseFault(unique)).toBeNull();
  });

  it.skipIf(noSmallDisk !== null)("a full tablespace refuses writes with disk_full (53100, 507); reads go on; once there is room the same Database writes again", async () => {
    const mounted = (pgDisk = mountSmallDisk("1m"));
    const location = join(mounted.dir, "tablespace");
    mkdirSync(location, { mode: 0o700 });
    chownSync(location, idOf("-u"), idOf("-g"));
    const { database } = await open();
    await sql.raw(`CREATE TABLESPACE lp_small LOCATION '${location}'`).execute(database.db);
    try {
      await createRowsTable(database, "lp_small");
      const filler = join(mounted.dir, "filler");
      fillDisk(filler);
      const { error, inserted } = await insertUntilRefused(database);
      const fault = toDatabaseFault(error);
      expect(fault).toMatchObject({ reason: "disk_full", code: "insufficient_storage", sysCode: "53100" });
      expect(ERROR_STATUS[fault!.code]).toBe(507);
      expect(await countRows(database)).toBe(inserted);
      rmSync(filler);
      await insertRow(database);
      expect(await countRows(database)).toBe(inserted + 1);
    } finally {
      await sql`DROP TABLE IF EXISTS fault_rows`.execute(database.db);
      await sql`DROP TABLESPACE lp_small`.execute(database.db);
    }
  });
});

/** The `postgres` user's uid or gid (`-u`, `-g`): the server owns its tablespace's folder. */
function idOf(flag: "-u" | "-g"): number {
  return Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
}
