import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../testing/postgres-server.js";
import { openDatabase, type Database } from "./database.js";
import { createNotifier, type NotificationHandler, type Notifier } from "./notify.js";

// Notifications cross processes on PostgreSQL only: on SQLite notify does nothing and listen registers
// nothing (the processes sharing a file are one; the caller wakes its own workers after the commit).
for (const kind of ["sqlite", "memory"]) {
  describe.skip(`notifications across processes (${kind}): in-process on SQLite, notify and listen do nothing`, () => {
    it("sends nothing between processes", () => {});
  });
}

if (!postgresAvailable) console.warn(postgresSkipReason("notifications across processes on PostgreSQL"));

/** What a handler received, and a wait for what it should receive next: bounded, never a fixed sleep. */
function createInbox() {
  const received: Array<string | null> = [];
  let changed = () => {};
  const handler: NotificationHandler = (payload) => {
    received.push(payload);
    changed();
  };
  const until = (what: string, test: (received: Array<string | null>) => boolean, ms = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms; received ${JSON.stringify(received)}`)), ms);
      changed = () => {
        if (!test(received)) return;
        clearTimeout(timer);
        resolve();
      };
      changed();
    });
  return { received, handler, until };
}

describe.skipIf(!postgresAvailable)("notifications across processes (postgres)", () => {
  let server: PostgresServer;
  const closing: Array<Database | Notifier> = [];
  beforeAll(async () => {
    server = await startPostgresServer({ fsync: false });
  });
  afterEach(async () => {
    for (const item of closing.splice(0).reverse()) await item.close().catch(() => {});
  });
  afterAll(async () => {
    await server?.dispose();
  });

  /** Two processes' views of one database: a pool that sends, and another pool with the notifier that listens. */
  async function twoProcesses(url: string) {
    const sender = await openDatabase({ kind: "postgres", url });
    const receiver = await openDatabase({ kind: "postgres", url });
    const losses: unknown[] = [];
    const sending = createNotifier(sender, { url });
    const listening = createNotifier(receiver, { url, onError: (error) => losses.push(error) });
    closing.push(sender, receiver, sending, listening);
    return { sender, sending, listening, losses };
  }

  it("delivers what a committed transaction sent to a listener of another pool, and nothing once unlistened", async () => {
    const { sender, sending, listening } = await twoProcesses(await server.createDatabase());
    const work = createInbox();
    const other = createInbox();
    const stop = await listening.listen("lp_work", work.handler);
    await listening.listen("lp_other", other.handler);
    await sender.transaction((tx) => sending.notify(tx, "lp_work", "job_1"));
    await work.until("job_1", (r) => r.includes("job_1"));
    expect(work.received).toEqual(["job_1"]);
    await stop();
    await sender.transaction((tx) => sending.notify(tx, "lp_work", "job_2"));
    await sender.transaction((tx) => sending.notify(tx, "lp_other"));
    // Notifications arrive in commit order: once the later one is in, the earlier one would have been too.
    await other.until("the notification of lp_other", (r) => r.length === 1);
    expect(other.received).toEqual([""]);
    expect(work.received).toEqual(["job_1"]);
  });

  it("listens to many channels asked for at once, one statement at a time on its connection (pg warns of queued queries)", async () => {
    const { sender, sending, listening } = await twoProcesses(await server.createDatabase());
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const inboxes = Array.from({ length: 6 }, () => createInbox());
      // The connection is up first; the next ones are listened to on it, all asked for at once.
      await listening.listen(`lp_many_0`, inboxes[0]!.handler);
      await Promise.all(inboxes.slice(1).map((inbox, i) => listening.listen(`lp_many_${i + 1}`, inbox.handler)));
      await sender.transaction(async (tx) => {
        for (let i = 0; i < inboxes.length; i++) await sending.notify(tx, `lp_many_${i}`, `n${i}`);
      });
      for (const [i, inbox] of inboxes.entries()) await inbox.until(`n${i}`, (r) => r.includes(`n${i}`));
      expect(inboxes.map((inbox) => inbox.received)).toEqual(inboxes.map((_, i) => [`n${i}`]));
      // A warning is emitted on the next tick of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => /client\.query|already executing/i.test(w))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("sends nothing for a transaction that rolled back", async () => {
    const { sender, sending, listening } = await twoProcesses(await server.createDatabase());
    const inbox = createInbox();
    await listening.listen("lp_work", inbox.handler);
    await expect(
      sender.transaction(async (tx) => {
        await sending.notify(tx, "lp_work", "rolled_back");
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    await sender.transaction((tx) => sending.notify(tx, "lp_work", "committed"));
    await inbox.until("the committed notification", (r) => r.includes("committed"));
    expect(inbox.received).toEqual(["committed"]);
  });

  it("refuses a channel that is not a lower-case identifier", async () => {
    const { sender, sending, listening } = await twoProcesses(await server.createDatabase());
    await expect(listening.listen("Work-Queue", () => {})).rejects.toThrow(/lower-case identifier/);
    await expect(sender.transaction((tx) => sending.notify(tx, "x".repeat(64)))).rejects.toThrow(/lower-case identifier/);
  });

  it("listens again after the server restarts, and tells its listeners that they may have missed something", { timeout: 90_000 }, async () => {
    const own = await startPostgresServer({ fsync: false });
    try {
      const { sender, sending, listening, losses } = await twoProcesses(await own.createDatabase());
      const inbox = createInbox();
      await listening.listen("lp_work", inbox.handler);
      await sender.transaction((tx) => sending.notify(tx, "lp_work", "before"));
      await inbox.until("the first notification", (r) => r.includes("before"));
      await own.stop();
      await own.restart();
      // Called with null once the connection is back and listening again.
      await inbox.until("the call after reconnecting", (r) => r.includes(null), 30_000);
      await sender.transaction((tx) => sending.notify(tx, "lp_work", "after"));
      await inbox.until("the notification after the restart", (r) => r.includes("after"));
      expect(inbox.received).toEqual(["before", null, "after"]);
      // The loss is reported once, not once per failed attempt to reconnect.
      expect(losses).toHaveLength(1);
    } finally {
      for (const item of closing.splice(0).reverse()) await item.close().catch(() => {});
      await own.dispose();
    }
  });
});
