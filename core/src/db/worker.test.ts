import { sql } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { createManualClock, type ManualClock } from "../deps.js";
import { describeDatabases } from "../testing/databases.js";
import { createManualScheduler, type ManualScheduler } from "../webhooks/scheduler.js";
import type { Database, Queries } from "./database.js";
import { claimDue, type QueueTable } from "./queue.js";
import { CLAIM_ENDED, createWorker, LeaseLost, type Lease, type Worker, type WorkerOptions } from "./worker.js";

// A table of due work made for the test, with the three columns every queue table has.
const work: QueueTable = { table: "test_work", key: "id" };
const t = (minute: number, second = 0) => `2026-03-01T10:${String(minute).padStart(2, "0")}:${String(second).padStart(2, "0")}.000Z`;

interface Row {
  id: string;
  due_at: string | null;
  lease_owner?: string | null;
  lease_expires_at?: string | null;
}

async function insertWork(db: Queries, rows: Row[]) {
  for (const row of rows) {
    await sql`insert into test_work (id, due_at, lease_owner, lease_expires_at) values (${row.id}, ${row.due_at}, ${row.lease_owner ?? null}, ${row.lease_expires_at ?? null})`.execute(db);
  }
}
const rows = async (db: Queries) => (await sql<Required<Row>>`select id, due_at, lease_owner, lease_expires_at from test_work order by id`.execute(db)).rows;

/** A promise resolved from outside: a run waits on it until the test lets it go. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Counts runs started, and resolves `reached(n)` once n have started. */
function createStarts() {
  const keys: string[] = [];
  const waits: Array<{ n: number; resolve: () => void }> = [];
  return {
    keys,
    add(key: string) {
      keys.push(key);
      for (const wait of waits.filter((w) => keys.length >= w.n)) {
        waits.splice(waits.indexOf(wait), 1);
        wait.resolve();
      }
    },
    reached: (n: number) => (keys.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waits.push({ n, resolve }))),
  };
}

describeDatabases("the worker of due work", ({ open }) => {
  let database: Database;
  let clock: ManualClock;
  let scheduler: ManualScheduler;
  let errors: Array<{ key: string | null; error: unknown }>;
  beforeEach(async () => {
    database = await open();
    await sql`create table test_work (id text primary key, due_at text, lease_owner text, lease_expires_at text)`.execute(database.db);
    clock = createManualClock(t(0));
    scheduler = createManualScheduler(clock);
    errors = [];
  });
  const start = (options: Pick<WorkerOptions, "run"> & Partial<WorkerOptions>): Worker =>
    createWorker({ database, table: work, owner: "p1", clock, scheduler, onError: (key, error) => errors.push({ key, error }), ...options });

  it("runs a due row once and records when it is next due", async () => {
    await insertWork(database.db, [
      { id: "a", due_at: t(0) },
      { id: "b", due_at: t(0) },
      { id: "c", due_at: null },
    ]);
    const ran: string[] = [];
    const worker = start({ run: async (key) => (ran.push(key), { due_at: key === "b" ? t(30) : null }) });
    worker.wake();
    await worker.onIdle();
    worker.wake();
    await worker.onIdle();
    expect(ran.sort()).toEqual(["a", "b"]);
    expect(await rows(database.db)).toEqual([
      { id: "a", due_at: null, lease_owner: null, lease_expires_at: null },
      { id: "b", due_at: t(30), lease_owner: null, lease_expires_at: null },
      { id: "c", due_at: null, lease_owner: null, lease_expires_at: null },
    ]);
    // One timer: for b at 10:30.
    expect(scheduler.pending).toBe(1);
    expect(errors).toEqual([]);
    await worker.close();
  });

  it("runs a row written for later when the clock reaches its due time, not before", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(5) }]);
    const ran: string[] = [];
    const worker = start({ run: async (key) => (ran.push(`${key}@${clock.now().toISOString()}`), { due_at: null }) });
    worker.wake();
    await worker.onIdle();
    await scheduler.advanceAsync(5 * 60_000 - 1, () => worker.onIdle());
    expect(ran).toEqual([]);
    await scheduler.advanceAsync(1, () => worker.onIdle());
    expect(ran).toEqual([`a@${t(5)}`]);
    expect(scheduler.pending).toBe(0);
    await worker.close();
  });

  it("runs no more rows at once than its concurrency", async () => {
    await insertWork(database.db, ["a", "b", "c", "d", "e"].map((id) => ({ id, due_at: t(0) })));
    const starts = createStarts();
    const gate = deferred();
    let inFlight = 0;
    let most = 0;
    const worker = start({
      concurrency: 2,
      run: async (key) => {
        most = Math.max(most, ++inFlight);
        starts.add(key);
        await gate.promise;
        inFlight--;
        return { due_at: null };
      },
    });
    worker.wake();
    await starts.reached(2);
    // The claim that started them took two rows, no more.
    expect(worker.names().sort()).toEqual(["a", "b"]);
    expect((await rows(database.db)).map((row) => row.lease_owner)).toEqual(["p1", "p1", null, null, null]);
    gate.resolve();
    await starts.reached(5);
    await worker.onIdle();
    expect(starts.keys).toEqual(["a", "b", "c", "d", "e"]);
    expect(most).toBe(2);
    expect((await rows(database.db)).every((row) => row.due_at === null && row.lease_owner === null)).toBe(true);
    await worker.close();
  });

  it("takes over the rows of a dead process once their leases lapse", async () => {
    clock.set(t(1));
    await insertWork(database.db, [
      { id: "a", due_at: t(0), lease_owner: "dead", lease_expires_at: t(0, 30) },
      { id: "b", due_at: t(0), lease_owner: "dead", lease_expires_at: t(1, 30) },
    ]);
    const ran: string[] = [];
    const worker = start({ run: async (key) => (ran.push(`${key}@${clock.now().toISOString()}`), { due_at: null }) });
    worker.wake();
    await worker.onIdle();
    expect(ran).toEqual([`a@${t(1)}`]);
    await scheduler.advanceAsync(29_999, () => worker.onIdle());
    expect(ran).toEqual([`a@${t(1)}`]);
    await scheduler.advanceAsync(1, () => worker.onIdle());
    expect(ran).toEqual([`a@${t(1)}`, `b@${t(1, 30)}`]);
    expect((await rows(database.db)).map((row) => row.lease_owner)).toEqual([null, null]);
    await worker.close();
  });

  it("aborts a run whose lease a renewal finds taken, and records nothing of it", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    const leases: Lease[] = [];
    const started = createStarts();
    const gate = deferred();
    const worker = start({
      run: async (key, lease) => {
        leases.push(lease);
        started.add(key);
        await gate.promise;
        return { due_at: t(30) };
      },
    });
    worker.wake();
    await started.reached(1);
    const lease = leases[0]!;
    expect(() => lease.assertHeld()).not.toThrow();
    // Another process took the row (as if this one had stopped renewing long enough for the lease to lapse).
    await sql`update test_work set lease_owner = 'p2', lease_expires_at = ${t(5)} where id = 'a'`.execute(database.db);
    const aborted = new Promise<void>((resolve) => lease.signal.addEventListener("abort", () => resolve()));
    scheduler.advance(10_000);
    await aborted;
    expect(lease.signal.reason).toBeInstanceOf(LeaseLost);
    expect(() => lease.assertHeld()).toThrow(LeaseLost);
    gate.resolve();
    await worker.onIdle();
    expect(await rows(database.db)).toEqual([{ id: "a", due_at: t(0), lease_owner: "p2", lease_expires_at: t(5) }]);
    expect(errors).toEqual([{ key: "a", error: expect.any(LeaseLost) }]);
    await worker.close();
  });

  it("refuses the finish of a run whose row was taken before it ended", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    const started = createStarts();
    const gate = deferred();
    const worker = start({
      run: async (key) => {
        started.add(key);
        await gate.promise;
        return { due_at: null };
      },
    });
    worker.wake();
    await started.reached(1);
    await sql`update test_work set lease_owner = 'p2', lease_expires_at = ${t(5)} where id = 'a'`.execute(database.db);
    gate.resolve();
    await worker.onIdle();
    expect(await rows(database.db)).toEqual([{ id: "a", due_at: t(0), lease_owner: "p2", lease_expires_at: t(5) }]);
    expect(errors).toEqual([{ key: "a", error: expect.any(LeaseLost) }]);
    await worker.close();
  });

  it("finishes nothing after a run that ended its claim itself, and keeps what was written after it", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    const worker = start({
      run: async (key) => {
        // The run's own transaction ends the claim; another writer then makes the row due again.
        await sql`update test_work set lease_owner = null, lease_expires_at = null, due_at = null where id = ${key}`.execute(database.db);
        await sql`update test_work set due_at = ${t(7)} where id = ${key}`.execute(database.db);
        return CLAIM_ENDED;
      },
    });
    worker.wake();
    await worker.onIdle();
    expect(await rows(database.db)).toEqual([{ id: "a", due_at: t(7), lease_owner: null, lease_expires_at: null }]);
    expect(errors).toEqual([]);
    await worker.close();
  });

  it("runs again, once its lease lapses, a row whose run threw", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    const ran: string[] = [];
    const worker = start({
      run: async (key) => {
        ran.push(`${key}@${clock.now().toISOString()}`);
        if (ran.length === 1) throw new Error("the run failed");
        return { due_at: null };
      },
    });
    worker.wake();
    await worker.onIdle();
    expect(errors.map((e) => [e.key, (e.error as Error).message])).toEqual([["a", "the run failed"]]);
    expect((await rows(database.db))[0]).toMatchObject({ lease_owner: "p1", lease_expires_at: t(0, 30) });
    await scheduler.advanceAsync(30_000, () => worker.onIdle());
    expect(ran).toEqual([`a@${t(0)}`, `a@${t(0, 30)}`]);
    expect(await rows(database.db)).toEqual([{ id: "a", due_at: null, lease_owner: null, lease_expires_at: null }]);
    await worker.close();
  });

  it("claims what was committed once woken, and a wake during a claim is not lost", async () => {
    const ran: string[] = [];
    const worker = start({ run: async (key) => (ran.push(key), { due_at: null }) });
    worker.wake();
    await worker.onIdle();
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    // Not woken, no timer: nothing looks at the table.
    await worker.onIdle();
    expect(scheduler.pending).toBe(0);
    expect(ran).toEqual([]);
    worker.wake();
    await worker.onIdle();
    expect(ran).toEqual(["a"]);
    // A row committed while a claim is under way: the second wake asks for another claim.
    worker.wake();
    await insertWork(database.db, [{ id: "b", due_at: t(0) }]);
    worker.wake();
    await worker.onIdle();
    expect(ran).toEqual(["a", "b"]);
    await worker.close();
  });

  it("closes after the runs in flight, claiming nothing more", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    const started = createStarts();
    const gate = deferred();
    const worker = start({
      run: async (key) => {
        started.add(key);
        await gate.promise;
        return { due_at: null };
      },
    });
    worker.wake();
    await started.reached(1);
    let closed = false;
    const closing = worker.close().then(() => (closed = true));
    await insertWork(database.db, [{ id: "b", due_at: t(0) }]);
    worker.wake();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    expect(worker.names()).toEqual(["a"]);
    gate.resolve();
    await closing;
    expect(closed).toBe(true);
    expect(started.keys).toEqual(["a"]);
    expect(await rows(database.db)).toEqual([
      { id: "a", due_at: null, lease_owner: null, lease_expires_at: null },
      { id: "b", due_at: t(0), lease_owner: null, lease_expires_at: null },
    ]);
    // Neither the next due time nor a renewal is left waiting.
    expect(scheduler.pending).toBe(0);
  });

  it("reports a failed claim and retries it with a growing back-off", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    let claims = 0;
    const ran: string[] = [];
    const worker = start({
      // The first two claims fail in the engine (a table that is not there), as a database that is away would.
      claim: (db, table, options) => claimDue(db.db, db.dialect, ++claims <= 2 ? { table: "missing_work", key: "id" } : table, options),
      run: async (key) => (ran.push(`${key}@${clock.now().toISOString()} after claim ${claims}`), { due_at: null }),
    });
    worker.wake();
    await worker.onIdle();
    expect(claims).toBe(1);
    expect(errors).toEqual([{ key: null, error: expect.any(Error) }]);
    await scheduler.advanceAsync(99, () => worker.onIdle());
    expect(claims).toBe(1);
    await scheduler.advanceAsync(1, () => worker.onIdle());
    expect(claims).toBe(2);
    expect(errors).toHaveLength(2);
    await scheduler.advanceAsync(199, () => worker.onIdle());
    expect(claims).toBe(2);
    await scheduler.advanceAsync(1, () => worker.onIdle());
    expect(ran).toEqual([`a@2026-03-01T10:00:00.300Z after claim 3`]);
    expect(errors).toHaveLength(2);
    await worker.close();
  });

  it("looks again less and less often at due work its claim refuses", async () => {
    await insertWork(database.db, [{ id: "a", due_at: t(0) }]);
    const looks: string[] = [];
    // A claim with a rule of its own that refuses the row (as an endpoint's concurrency held elsewhere would).
    const worker = start({ claim: async (_db, _table, options) => (looks.push(options.now), []), run: async () => ({ due_at: null }) });
    worker.wake();
    await worker.onIdle();
    // Once at the wake, once more at once (a row may have come due between the claim and the look), then later.
    expect(looks).toEqual([t(0), t(0)]);
    await scheduler.advanceAsync(10_000, () => worker.onIdle());
    expect(looks).toEqual([t(0), t(0), t(0, 1), t(0, 3), t(0, 7)]);
    expect(scheduler.pending).toBe(1);
    await worker.close();
  });
});
