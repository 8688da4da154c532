import { createManualClock, openDatabase } from "@lp/core";
import { expect, it } from "vitest";
import { describeDatabases } from "../../../core/src/testing/databases.js";
import { createDashboardAccess } from "./access.js";
import { createDatabaseKeys } from "./database-keys.js";

const t0 = "2026-03-01T10:00:00.000Z";

/** The dashboard's login tokens and sessions in the `dashboard_keys` table: what processes sharing PostgreSQL keep together. */
describeDatabases("dashboard keys in the database", ({ kind, open, target }) => {
  it("forgets a value when its time is up, and a touch gives a live one more", async () => {
    const clock = createManualClock(t0);
    const keys = createDatabaseKeys(await open(), clock);
    await keys.put("a", "1", 100);
    await keys.put("b", "2", 100);
    clock.advance(60);
    await keys.touch("a", 100);
    clock.advance(60);
    expect(await keys.get("a")).toBe("1");
    expect(await keys.get("b")).toBeNull();
    // An expired key is neither taken nor brought back by a touch.
    expect(await keys.take("b")).toBeNull();
    await keys.touch("b", 100);
    expect(await keys.get("b")).toBeNull();
  });

  it("writes a key again with its new value and time, and removes it", async () => {
    const clock = createManualClock(t0);
    const keys = createDatabaseKeys(await open(), clock);
    await keys.put("a", "first", 100);
    await keys.put("a", "second", 1000);
    clock.advance(500);
    expect(await keys.get("a")).toBe("second");
    await keys.remove("a");
    expect(await keys.get("a")).toBeNull();
  });

  it("removes expired rows at the next write, and keeps the live ones; closing keeps them for the others", async () => {
    const clock = createManualClock(t0);
    const database = await open();
    const keys = createDatabaseKeys(database, clock);
    await keys.put("old", "1", 100);
    await keys.put("live", "2", 10_000);
    clock.advance(100);
    await keys.put("new", "3", 10_000);
    const rows = await database.db.selectFrom("dashboard_keys").select(["key", "expires_at"]).orderBy("key").execute();
    expect(rows).toEqual([
      { key: "live", expires_at: "2026-03-01T10:00:10.000Z" },
      { key: "new", expires_at: "2026-03-01T10:00:10.100Z" },
    ]);
    await keys.close();
    expect(await createDatabaseKeys(database, clock).get("live")).toBe("2");
  });

  it("stores hashes, never the login token or the session cookie", async () => {
    const database = await open();
    const access = createDashboardAccess(createDatabaseKeys(database, createManualClock(t0)));
    const rows = () => database.db.selectFrom("dashboard_keys").select(["key", "value"]).execute();
    const token = await access.mintLogin();
    const minted = await rows();
    expect(minted).toEqual([{ key: expect.stringMatching(/^login:[0-9a-f]{64}$/), value: "1" }]);
    expect(JSON.stringify(minted)).not.toContain(token);
    const redeemed = (await access.redeem(token))!;
    const opened = await rows();
    expect(opened).toEqual([{ key: expect.stringMatching(/^session:[0-9a-f]{64}$/), value: redeemed.session.id }]);
    expect(JSON.stringify(opened)).not.toContain(redeemed.cookie);
  });

  it.skipIf(kind === "memory")("hands a login token to one of two processes redeeming it at once, and a session made on one is the other's", async () => {
    // Two openings of one database, as two processes have.
    const where = await target();
    const first = await openDatabase(where);
    const second = await openDatabase(where);
    try {
      const clock = createManualClock(t0);
      const a = createDashboardAccess(createDatabaseKeys(first, clock));
      const b = createDashboardAccess(createDatabaseKeys(second, clock));
      for (let round = 0; round < 10; round++) {
        const token = await a.mintLogin();
        const redeemed = await Promise.all([a.redeem(token), b.redeem(token), a.redeem(token), b.redeem(token)]);
        expect(redeemed.filter((r) => r !== null)).toHaveLength(1);
      }
      const session = (await b.redeem(await a.mintLogin()))!;
      const cookie = `lp_dashboard=${session.cookie}`;
      expect(await a.sessionOf(cookie)).toEqual(session.session);
      await b.logout(cookie);
      expect(await a.sessionOf(cookie)).toBeNull();
    } finally {
      await first.close();
      await second.close();
    }
  });
});
