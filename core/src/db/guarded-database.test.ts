import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { createManualClock } from "../deps.js";
import { StorageFaultError } from "../storage/storage-faults.js";
import { describeDatabases } from "../testing/databases.js";
import { faultyDatabase } from "../testing/faulty-database.js";
import { fillDisk, mountSmallDisk, whySmallDiskUnavailable } from "../testing/small-disk.js";
import { openDatabase, type Database } from "./database.js";
import { isUniqueViolation } from "./errors.js";
import { PROBE_SETTING, watchDatabase } from "./guarded-database.js";
import { hookStatements, type StatementKind } from "./statement-hooks.js";

const at = "2026-03-01T10:00:00.000Z";
const account = (account_id: string) => ({ account_id, environment: "production" as const, currency: "USD", page_quota: 100, product_quota: 10_000, media_quota_bytes: 1024, created_at: at, updated_at: at });
const ids = async (database: Database) => (await database.db.selectFrom("accounts").select("account_id").orderBy("account_id").execute()).map((row) => row.account_id);
const errorOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

/** A watched database with a fault switch, its log lines, and its fault's timers (run by hand). */
async function watched(database: Database) {
  const faulty = faultyDatabase(database);
  const lines: string[] = [];
  const clock = createManualClock(at);
  const watch = await watchDatabase(database, { clock, log: (line) => lines.push(line), every: () => () => {} });
  return { ...watch, faulty, lines, clock };
}

describeDatabases("statement hooks", ({ open }) => {
  it("see every statement with its kind, in a transaction or not, and whether the transaction changed rows", async () => {
    const database = await open();
    const seen: Array<[StatementKind, boolean, boolean]> = [];
    const remove = hookStatements(database, (statement, run) => (seen.push([statement.kind, statement.inTransaction, statement.wrote]), run()));
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    await database.transaction(async (tx) => {
      await tx.selectFrom("accounts").selectAll().execute();
      await tx.updateTable("accounts").set({ page_quota: 5 }).where("account_id", "=", "nobody").execute();
      await tx.updateTable("accounts").set({ page_quota: 5 }).where("account_id", "=", "acct_1").execute();
    });
    await database.transaction((tx) => tx.selectFrom("accounts").selectAll().execute());
    await errorOf(database.transaction(async (tx) => void (await tx.insertInto("accounts").values(account("acct_1")).execute())));
    expect(seen).toEqual([
      ["write", false, false],
      ["begin", false, false],
      ["read", true, false],
      // An update that matched nothing changed nothing.
      ["write", true, false],
      ["write", true, false],
      ["commit", true, true],
      ["begin", false, false],
      ["read", true, false],
      ["commit", true, false],
      ["begin", false, false],
      ["write", true, false],
      ["rollback", true, false],
    ]);
    remove();
    await database.db.selectFrom("accounts").selectAll().execute();
    expect(seen).toHaveLength(12);
  });

  it("a rollback after the engine already ended the transaction gives way to the error that ended it", async () => {
    const database = await open();
    const ended = new Error("the statement's own error");
    // SQLite ends a transaction itself after some failures (a full disk); Kysely's rollback then finds none.
    const error = await errorOf(
      database.transaction(async (tx) => {
        await tx.insertInto("accounts").values(account("acct_1")).execute();
        await sql`rollback`.execute(tx);
        throw ended;
      }),
    );
    expect(error).toBe(ended);
    expect(await ids(database)).toEqual([]);
    await database.transaction(async (tx) => void (await tx.insertInto("accounts").values(account("acct_2")).execute()));
    expect(await ids(database)).toEqual(["acct_2"]);
  });
});

describeDatabases("storage faults of the database", ({ kind, open }) => {
  const sysCode = kind === "postgres" ? "53100" : "SQLITE_FULL";

  it("turns a full disk into a StorageFaultError wherever the write is, rolls back, logs once, and ends with the first committed change", async () => {
    const database = await open();
    const { health, faulty, lines, place } = await watched(database);
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    faulty.refuse();

    const inTransaction = await errorOf(
      database.transaction(async (tx) => {
        await tx.insertInto("accounts").values(account("acct_2")).execute();
        await tx.insertInto("accounts").values(account("acct_3")).execute();
      }),
    );
    expect(inTransaction).toBeInstanceOf(StorageFaultError);
    expect(inTransaction).toMatchObject({ reason: "disk_full", code: "insufficient_storage", sysCode, details: { reason: "disk_full", retry_after_seconds: 30 } });
    const outside = await errorOf(database.db.updateTable("accounts").set({ page_quota: 1 }).execute());
    expect(outside).toMatchObject({ reason: "disk_full", sysCode });
    // Reads go on, and so do a write that changes nothing and a transaction that only reads.
    expect(await ids(database)).toEqual(["acct_1"]);
    await database.db.updateTable("accounts").set({ page_quota: 1 }).where("account_id", "=", "nobody").execute();
    await database.transaction((tx) => tx.selectFrom("accounts").selectAll().execute());
    expect(health.state()).toMatchObject({ reason: "disk_full", since: at, refused: 2 });
    expect(await database.db.selectFrom("accounts").select("page_quota").execute()).toEqual([{ page_quota: 100 }]);
    expect(lines).toEqual([`storage: disk full at ${place.where} (${sysCode}); writes refused until there is room`]);
    // Named by the engine's own answer: the SQLite file's folder, memory, or the PostgreSQL server and database.
    if (kind === "sqlite") expect(place).toEqual({ where: dirname(place.file!), dir: dirname(place.file!), file: expect.stringMatching(/\.db$/) });
    else if (kind === "memory") expect(place).toEqual({ where: "memory storage" });
    else expect(place.where).toMatch(/^postgres:\/\/127\.0\.0\.1:\d+\/\w+$/);

    // Still refused, the probe is not counted.
    await health.probe();
    expect(health.state()).toMatchObject({ refused: 2 });
    expect(faulty.state.refused).toBe(3);

    faulty.heal();
    // A constraint's refusal is no fault, and passes as the engine gave it.
    expect(isUniqueViolation(await errorOf(database.db.insertInto("accounts").values(account("acct_1")).execute()))).toBe(true);
    expect(health.state()).not.toBeNull();
    await database.transaction(async (tx) => void (await tx.insertInto("accounts").values(account("acct_2")).execute()));
    expect(health.state()).toBeNull();
    expect(lines.at(-1)).toBe(`storage: writes accepted again at ${place.where} (disk full is over; 2 refused in 0 s)`);
  });

  it("ends a fault by its probe, which upserts the settings row of the probe", async () => {
    const database = await open();
    const { health, faulty, clock } = await watched(database);
    faulty.refuse();
    expect(await errorOf(database.db.insertInto("accounts").values(account("acct_1")).execute())).toBeInstanceOf(StorageFaultError);
    faulty.heal();
    await health.probe();
    expect(health.state()).toBeNull();
    clock.advance(1000);
    faulty.refuse();
    expect(await errorOf(database.db.insertInto("accounts").values(account("acct_1")).execute())).toBeInstanceOf(StorageFaultError);
    faulty.heal();
    await health.probe();
    expect(await database.db.selectFrom("settings").select(["value", "created_at"]).where("name", "=", PROBE_SETTING).execute()).toEqual([{ value: "2026-03-01T10:00:01.000Z", created_at: at }]);
  });

  it("refuses only the writes to the tables named, and leaves the transaction's other rows out", async () => {
    const database = await open();
    const { faulty } = await watched(database);
    faulty.refuse({ errno: "ENOSPC", tables: ["tokens"] });
    await database.db.insertInto("accounts").values(account("acct_1")).execute();
    const error = await errorOf(
      database.transaction(async (tx) => {
        await tx.insertInto("accounts").values(account("acct_2")).execute();
        await tx.insertInto("tokens").values({ token_hash: "h", account_id: "acct_2", scopes: "[]", expires_at: null, created_at: at }).execute();
      }),
    );
    expect(error).toMatchObject({ reason: "disk_full" });
    expect(await ids(database)).toEqual(["acct_1"]);
  });

  it.skipIf(kind === "postgres")("names a read-only and a forbidden disk as SQLite reports them", async () => {
    const database = await open();
    const { faulty } = await watched(database);
    faulty.refuse({ errno: "EROFS" });
    expect(await errorOf(database.db.insertInto("accounts").values(account("acct_1")).execute())).toMatchObject({ reason: "read_only", code: "storage_unavailable", sysCode: "SQLITE_READONLY" });
    faulty.refuse({ errno: "EACCES" });
    expect(await errorOf(database.db.insertInto("accounts").values(account("acct_1")).execute())).toMatchObject({ reason: "permission_denied", code: "storage_unavailable", sysCode: "SQLITE_CANTOPEN" });
  });
});

const noDisk = whySmallDiskUnavailable();
describe.skipIf(noDisk !== null)("an SQLite file on a full disk (tmpfs)", () => {
  it("is refused at its opening naming the file and the errno, and opens once there is room", async () => {
    const small = mountSmallDisk("4m", "0700");
    try {
      const file = join(small.dir, "lp.db");
      const database = await openDatabase({ kind: "sqlite", file });
      await database.db.insertInto("accounts").values(account("acct_1")).execute();
      await database.close();
      fillDisk(join(small.dir, "filler"));
      // Even a read needs room: SQLite makes the shared-memory file of its write-ahead log at the opening.
      await expect(openDatabase({ kind: "sqlite", file })).rejects.toThrow(`Cannot open ${file} (ENOSPC): its disk is full; make room there and start again.`);
      rmSync(join(small.dir, "filler"));
      const again = await openDatabase({ kind: "sqlite", file });
      expect(await ids(again)).toEqual(["acct_1"]);
      await again.close();
    } finally {
      small.unmount();
    }
  });
});
