import { expect, it } from "vitest";
import { openDatabase } from "../db/database.js";
import { createManualClock } from "../deps.js";
import { describeDatabases } from "../testing/databases.js";
import { createDatabaseRateWindows } from "./database-rate-windows.js";

const t0 = "2026-03-01T10:00:00.000Z";

/** The checkout rate limit's windows in the `rate_windows` table: what processes sharing PostgreSQL count together. */
describeDatabases("rate windows in the database", ({ kind, open, target }) => {
  it("counts the hits of a key in its window, with the time left, and keeps keys apart", async () => {
    const clock = createManualClock(t0);
    const windows = createDatabaseRateWindows(await open(), clock);
    expect(await windows.hit("checkout:10.0.0.1", 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
    clock.advance(15_000);
    expect(await windows.hit("checkout:10.0.0.1", 60_000)).toEqual({ count: 2, resetInMs: 45_000 });
    expect(await windows.hit("checkout:10.0.0.2", 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
    expect(await windows.hit("other:10.0.0.1", 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
    clock.advance(44_999);
    expect(await windows.hit("checkout:10.0.0.1", 60_000)).toEqual({ count: 3, resetInMs: 1 });
  });

  it("opens a new window at 1 once the last one ended, timed from that hit", async () => {
    const clock = createManualClock(t0);
    const database = await open();
    const windows = createDatabaseRateWindows(database, clock);
    for (let i = 0; i < 3; i++) await windows.hit("checkout:a", 1000);
    clock.advance(1000);
    expect(await windows.hit("checkout:a", 1000)).toEqual({ count: 1, resetInMs: 1000 });
    clock.advance(400);
    expect(await windows.hit("checkout:a", 1000)).toEqual({ count: 2, resetInMs: 600 });
    expect(await database.db.selectFrom("rate_windows").selectAll().execute()).toEqual([
      { key: "checkout:a", count: 2, started_at: "2026-03-01T10:00:01.000Z", ends_at: "2026-03-01T10:00:02.000Z" },
    ]);
  });

  it("sweeps the windows ended by now, and only those", async () => {
    const clock = createManualClock(t0);
    const database = await open();
    const windows = createDatabaseRateWindows(database, clock);
    await windows.hit("checkout:short", 1000);
    await windows.hit("checkout:long", 60_000);
    expect(await windows.sweep()).toBe(0);
    clock.advance(1000);
    expect(await windows.sweep()).toBe(1);
    expect(await database.db.selectFrom("rate_windows").select("key").execute()).toEqual([{ key: "checkout:long" }]);
    // The long window goes on counting where it was.
    expect((await windows.hit("checkout:long", 60_000)).count).toBe(2);
  });

  it.skipIf(kind === "memory")("gives every hit of two processes at once its own count, none lost", async () => {
    // Two openings of one database, as two processes have: each its own connections (a pool on PostgreSQL).
    const where = await target();
    const first = await openDatabase(where);
    const second = await openDatabase(where);
    try {
      const clock = createManualClock(t0);
      const a = createDatabaseRateWindows(first, clock);
      const b = createDatabaseRateWindows(second, clock);
      const counts = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).hit("checkout:shared", 60_000)));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    } finally {
      await first.close();
      await second.close();
    }
  });
});
