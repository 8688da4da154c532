import { sql } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { describeDatabases } from "../testing/databases.js";
import type { Database, Queries } from "./database.js";
import { claimDue, finishClaim, mayHoldLeftWork, nextDueAt, renewLease, type QueueTable } from "./queue.js";

// A table of due work made for the test, with the three columns every queue table has.
const work: QueueTable = { table: "test_work", key: "id" };
const t = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

async function createWork(db: Queries, rows: Array<{ id: string; due_at: string | null }>) {
  await sql`create table test_work (id text primary key, due_at text, lease_owner text, lease_expires_at text)`.execute(db);
  for (const row of rows) await sql`insert into test_work (id, due_at) values (${row.id}, ${row.due_at})`.execute(db);
}
const leases = async (db: Queries) => (await sql<{ id: string; lease_owner: string | null; due_at: string | null }>`select id, lease_owner, due_at from test_work order by id`.execute(db)).rows;

describeDatabases("the queue of due work", ({ kind, open }) => {
  let database: Database;
  beforeEach(async () => {
    database = await open();
  });

  it("claims what is due, earliest first, and leaves what is held or not yet due", async () => {
    await createWork(database.db, [{ id: "a", due_at: t(5) }, { id: "b", due_at: t(1) }, { id: "c", due_at: t(30) }, { id: "d", due_at: null }]);
    const claim = (owner: string, limit = 10) => claimDue(database.db, database.dialect, work, { now: t(10), owner, leaseUntil: t(11), limit });
    expect(await claim("p1", 1)).toEqual(["b"]);
    expect(await claim("p2")).toEqual(["a"]);
    expect(await claim("p3")).toEqual([]);
    expect(await leases(database.db)).toEqual([
      { id: "a", lease_owner: "p2", due_at: t(5) },
      { id: "b", lease_owner: "p1", due_at: t(1) },
      { id: "c", lease_owner: null, due_at: t(30) },
      { id: "d", lease_owner: null, due_at: null },
    ]);
  });

  it("gives a lapsed claim to the next claimer, and refuses the old owner's finish", async () => {
    await createWork(database.db, [{ id: "a", due_at: t(0) }]);
    expect(await claimDue(database.db, database.dialect, work, { now: t(1), owner: "dead", leaseUntil: t(2), limit: 1 })).toEqual(["a"]);
    expect(await claimDue(database.db, database.dialect, work, { now: t(1), owner: "p2", leaseUntil: t(3), limit: 1 })).toEqual([]);
    expect(await claimDue(database.db, database.dialect, work, { now: t(2), owner: "p2", leaseUntil: t(3), limit: 1 })).toEqual(["a"]);
    expect(await renewLease(database.db, work, "a", "dead", t(9))).toBe(false);
    expect(await finishClaim(database.db, work, "a", "dead", { due_at: null })).toBe(false);
    expect(await renewLease(database.db, work, "a", "p2", t(9))).toBe(true);
    expect(await finishClaim(database.db, work, "a", "p2", { due_at: t(20) })).toBe(true);
    expect(await leases(database.db)).toEqual([{ id: "a", lease_owner: null, due_at: t(20) }]);
  });

  it("says whether a start may find work a previous run left: on SQLite not while the tables are empty", async () => {
    await createWork(database.db, []);
    const tables = ["test_work", "page_jobs"];
    expect(await mayHoldLeftWork(database.db, database.dialect, tables)).toBe(kind === "postgres");
    await sql`insert into test_work (id, due_at) values ('a', null)`.execute(database.db);
    expect(await mayHoldLeftWork(database.db, database.dialect, tables)).toBe(true);
  });

  it("says when a claim could next take something", async () => {
    await createWork(database.db, [{ id: "a", due_at: t(20) }, { id: "b", due_at: t(0) }, { id: "c", due_at: null }]);
    expect(await nextDueAt(database.db, work)).toBe(t(0));
    await claimDue(database.db, database.dialect, work, { now: t(1), owner: "p1", leaseUntil: t(15), limit: 1 });
    expect(await nextDueAt(database.db, work)).toBe(t(15));
    await finishClaim(database.db, work, "b", "p1", { due_at: null });
    expect(await nextDueAt(database.db, work)).toBe(t(20));
  });

  it("never gives one row to two claimers at once", async () => {
    await createWork(database.db, Array.from({ length: 50 }, (_, i) => ({ id: `w${String(i).padStart(2, "0")}`, due_at: t(0) })));
    // Eight claimers at once, each in its own transaction (its own connection on PostgreSQL).
    const claimed = await Promise.all(
      Array.from({ length: 8 }, (_, i) => database.transaction((tx) => claimDue(tx, database.dialect, work, { now: t(1), owner: `p${i}`, leaseUntil: t(2), limit: 10 }))),
    );
    const all = claimed.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(50);
    if (kind === "postgres") expect(claimed.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
  });
});
