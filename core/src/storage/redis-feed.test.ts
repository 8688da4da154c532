import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createStores, type Stores } from "./create-storage.js";
import { compareStreamIds } from "./redis-feed.js";

if (!redisAvailable) console.warn(redisSkipReason("the Redis batch and change feed suite"));

let server: RedisServer;
let counter = 0;
const opened: Stores[] = [];
const open = (prefix: string, feedMaxLength?: number) => {
  const stores = createStores("redis", { url: server.url, prefix, feedMaxLength });
  opened.push(stores);
  return stores;
};

describe.skipIf(!redisAvailable)("Redis batches and change feed", () => {
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(opened.map((stores) => stores.dispose()));
    await server?.dispose();
  });

  it("a concurrent reader never sees part of a batch", async () => {
    const prefix = `b${++counter}:`;
    const writer = open(prefix);
    const keys = Array.from({ length: 8 }, (_, i) => `set:k${i}`);
    await writer.batch(keys.map((key) => ({ key, value: { round: 0 } })));
    // The reader takes snapshots with MGET (one command, so one point in time) while batches land.
    const reader = new Redis(server.url);
    let done = false;
    const snapshots: string[][] = [];
    const reading = (async () => {
      while (!done) snapshots.push((await reader.mget(...keys.map((key) => `${prefix}d:${key}`))) as string[]);
    })();
    for (let round = 1; round <= 150; round++) await writer.batch(keys.map((key) => ({ key, value: { round } })));
    done = true;
    await reading;
    reader.disconnect();
    expect(snapshots.length).toBeGreaterThan(1);
    for (const snapshot of snapshots) expect(new Set(snapshot).size, snapshot.join(" ")).toBe(1);
    expect(await writer.data.getItem("set:k7")).toEqual({ round: 150 });
  });

  it("a batch puts its entries in the feed together and in order, removals included", async () => {
    const prefix = `f${++counter}:`;
    const stores = open(prefix);
    const start = await stores.changes!.head();
    expect(start).toBe("0-0");
    await stores.data.setItem("a:1", { v: 1 });
    await stores.batch([
      { key: "a:2", value: { v: 2 } },
      { key: "a:1", remove: true },
      { key: "a:3", value: "text" },
    ]);
    await stores.data.removeItem("a:2");
    const all = await stores.changes!.read(start);
    expect(all.gap).toBe(false);
    expect(all.changes).toEqual([
      { key: "a:1", value: { v: 1 } },
      { key: "a:2", value: { v: 2 } },
      { key: "a:1", value: null },
      { key: "a:3", value: "text" },
      { key: "a:2", value: null },
    ]);
    expect(all.cursor).toBe(await stores.changes!.head());
    expect(await stores.data.getKeys("a")).toEqual(["a:3"]);
    // Paged reads resume after the cursor, exclusive.
    const first = await stores.changes!.read(start, 2);
    expect(first.changes.map((c) => c.key)).toEqual(["a:1", "a:2"]);
    const rest = await stores.changes!.read(first.cursor, 100);
    expect(rest.changes.map((c) => c.value)).toEqual([null, "text", null]);
    expect((await stores.changes!.read(rest.cursor)).changes).toEqual([]);
    // Another process's store sees the same feed.
    const other = open(prefix);
    expect((await other.changes!.read(start)).changes).toHaveLength(5);
  });

  it("reports a gap when the entries after the cursor were trimmed, and none for a reader that kept up", async () => {
    const stores = open(`g${++counter}:`, 10);
    await stores.data.setItem("g:first", { n: 0 });
    const old = (await stores.changes!.read("0-0")).cursor;
    const fresh = open(`g${counter}:`, 10);
    for (let i = 0; i < 30; i++) await stores.batch(Array.from({ length: 20 }, (_, j) => ({ key: `g:k${j}`, value: { i } })));
    const recent = await stores.changes!.head();
    await stores.data.setItem("g:last", { n: 1 });
    const late = await fresh.changes!.read(old);
    expect(late.gap).toBe(true);
    expect(late.changes).toEqual([]);
    expect(compareStreamIds(late.cursor, recent)).toBeGreaterThan(0);
    const current = await fresh.changes!.read(recent);
    expect(current).toEqual({ cursor: await stores.changes!.head(), changes: [{ key: "g:last", value: { n: 1 } }], gap: false });
    expect(await stores.data.getItem("g:first")).toEqual({ n: 0 });
  });

  it("reads nothing new, and no gap, from a feed nobody has written yet; then reads the first change", async () => {
    const stores = open(`e${++counter}:`);
    const head = await stores.changes!.head();
    expect(head).toBe("0-0");
    expect(await stores.changes!.read(head)).toEqual({ cursor: head, changes: [], gap: false });
    await stores.data.setItem("x:first", { n: 1 });
    const after = await stores.changes!.read(head);
    expect(after.changes).toEqual([{ key: "x:first", value: { n: 1 } }]);
    expect(after.gap).toBe(false);
  });

  it("fails a read while Redis is unreachable, rather than answering that nothing is new", async () => {
    const down = createStores("redis", { url: "redis://127.0.0.1:1/0", prefix: `u${++counter}:` });
    opened.push(down);
    await expect(down.changes!.read("0-0")).rejects.toMatchObject({ code: "service_unavailable" });
  });

  it("refuses a cursor that is not a stream id", async () => {
    const stores = open(`c${++counter}:`);
    await stores.data.setItem("x:y", 1);
    await expect(stores.changes!.read("abc")).rejects.toThrow(/cursor/);
  });
});
