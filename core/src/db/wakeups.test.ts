import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../testing/postgres-server.js";
import { openDatabase, type AnnouncedChange, type Database } from "./database.js";

if (!postgresAvailable) console.warn(postgresSkipReason("changes announced across processes on PostgreSQL"));

/** The changes a process heard, and a wait for the one it should hear next: bounded, never a fixed sleep. */
function createInbox() {
  const received: AnnouncedChange[] = [];
  let changed = () => {};
  const handler = (change: AnnouncedChange) => {
    received.push(change);
    changed();
  };
  const until = (type: string, ms = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${ms} ms; received ${JSON.stringify(received)}`)), ms);
      changed = () => {
        if (!received.some((change) => change.type === type)) return;
        clearTimeout(timer);
        resolve();
      };
      changed();
    });
  return { received, handler, until };
}

describe("changes announced on SQLite", () => {
  it("goes nowhere: one process per file tells its own listeners itself", async () => {
    const database = await openDatabase({ kind: "memory" });
    const heard: AnnouncedChange[] = [];
    database.wakeups.listenChanges((change) => heard.push(change));
    await expect(database.wakeups.announceChange({ type: "product.created", account_id: "acct_1" })).resolves.toBeUndefined();
    expect(heard).toEqual([]);
    await database.close();
  });
});

/** The dashboards' `lp_changes_<schema>` channel: a change announced by one process reaches the others, not itself. */
describe.skipIf(!postgresAvailable)("changes announced across processes (postgres)", () => {
  let server: PostgresServer;
  const opened: Database[] = [];
  beforeAll(async () => {
    server = await startPostgresServer({ fsync: false });
  });
  afterEach(async () => {
    for (const database of opened.splice(0)) await database.close().catch(() => {});
  });
  afterAll(async () => {
    await server?.dispose();
  });
  const openOn = async (url: string) => {
    const database = await openDatabase({ kind: "postgres", url });
    opened.push(database);
    return database;
  };

  it("reaches every other process once, in the order sent, and never the sender", async () => {
    const url = await server.createDatabase();
    const [a, b, c] = [await openOn(url), await openOn(url), await openOn(url)];
    const heard = { a: createInbox(), b: createInbox(), c: createInbox() };
    // Each resolves once its process listens.
    await a.wakeups.listenChanges(heard.a.handler);
    await b.wakeups.listenChanges(heard.b.handler);
    await c.wakeups.listenChanges(heard.c.handler);

    await a.wakeups.announceChange({ type: "product.created", account_id: "acct_1" });
    await a.wakeups.announceChange({ type: "product.updated", account_id: "acct_1" });
    // Sent after a's were: had a heard its own, they would have reached it before this one.
    await b.wakeups.announceChange({ type: "page.created", account_id: "acct_2" });
    await heard.a.until("page.created");
    await heard.c.until("page.created");
    await heard.b.until("product.updated");
    expect(heard.a.received).toEqual([{ type: "page.created", account_id: "acct_2" }]);
    expect(heard.b.received).toEqual([
      { type: "product.created", account_id: "acct_1" },
      { type: "product.updated", account_id: "acct_1" },
    ]);
    expect(heard.c.received).toEqual([
      { type: "product.created", account_id: "acct_1" },
      { type: "product.updated", account_id: "acct_1" },
      { type: "page.created", account_id: "acct_2" },
    ]);
  });
});
