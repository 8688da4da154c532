import { Redis } from "ioredis";
import type { Storage } from "unstorage";
import { describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason } from "../testing/redis-server.js";
import { redisSuite } from "../testing/redis-suite.js";
import { CollectionIndex } from "./collection-index.js";
import { IndexRegistry } from "./index-registry.js";
import { decodeBlock, encodeSnapshot, encodeSnapshotParts, openSnapshot } from "./index-snapshot.js";
import { countingReads, item, keyOf, PREFIX, toEntry, type Item } from "./index-items.fixture.js";

if (!redisAvailable) console.warn(redisSkipReason("the persisted list indexes on Redis"));


describe.skipIf(!redisAvailable)("persisted list indexes on Redis", () => {
  const redis = redisSuite();
  let run = 0;
  // A "process": its own Stores on the shared prefix, and a registry counting the records it reads.
  const processOn = async (prefix: string, feedMaxLength?: number) => {
    const stores = redis.open({ prefix, feedMaxLength });
    const { data, reads } = countingReads(stores.data);
    const registry = new IndexRegistry(data, stores.changes, { snapshots: stores.indexSnapshots, persistMin: 1 });
    await registry.start();
    return { stores, registry, reads };
  };
  const list = async (registry: IndexRegistry) => (await registry.get(PREFIX, toEntry)).query({ field: "created_at", descending: true, limit: 5000 }).items;
  const seeded = async (count: number, feedMaxLength?: number) => {
    const prefix = `ip${++run}:`;
    const writer = await processOn(prefix, feedMaxLength);
    await writer.stores.batch(Array.from({ length: count }, (_, i) => ({ key: keyOf(i + 1), value: item(i + 1) })));
    return { prefix, writer };
  };
  // Seeded, then listed by a first process and persisted at its flush: the snapshot a test restarts from.
  const persisted = async (count: number, feedMaxLength?: number) => {
    const seed = await seeded(count, feedMaxLength);
    const first = await processOn(seed.prefix, feedMaxLength);
    await list(first.registry);
    await first.registry.flush();
    return seed;
  };

  it("a process restores the index from the snapshot and the feed after it, reading no record", async () => {
    const { prefix, writer } = await persisted(30);
    // Changes after the snapshot, by another process: the next start learns them from the feed.
    await writer.stores.data.setItem(keyOf(31), item(31));
    await writer.stores.data.setItem(keyOf(4), item(4, "renamed"));
    await writer.stores.data.removeItem(keyOf(6));
    await writer.stores.data.setItem(keyOf(8), { ...item(8), gone: true });

    const second = await processOn(prefix);
    const items = await list(second.registry);
    expect(second.reads()).toBe(0);
    // The same list built from the records alone.
    await second.registry.settle();
    const rebuilt = await processOn(prefix);
    await rebuilt.stores.indexSnapshots!.removeAll();
    expect(items).toEqual(await list(rebuilt.registry));
    expect(rebuilt.reads()).toBeGreaterThan(0);
    expect(items.map((e) => e.id)).toContain("i0031");
    expect(items.map((e) => e.id)).not.toContain("i0006");
    expect(items.map((e) => e.id)).not.toContain("i0008");
    expect(items.find((e) => e.id === "i0004")?.title).toBe("renamed");
  });

  it("a rebuilt index is persisted once it follows the feed", async () => {
    const { prefix } = await seeded(20);
    const first = await processOn(prefix);
    await list(first.registry);
    await first.registry.settle();
    const second = await processOn(prefix);
    expect(await list(second.registry)).toHaveLength(20);
    expect(second.reads()).toBe(0);
  });

  it("is rebuilt when the feed was trimmed past the snapshot, or the snapshot is damaged", async () => {
    const { prefix, writer } = await persisted(10, 5);
    // More changes than the feed keeps: what happened after the snapshot can no longer be replayed.
    // (Redis trims `MAXLEN ~` by whole stream nodes of 100 entries: write a few hundred.)
    for (let i = 11; i <= 400; i += 30) await writer.stores.batch(Array.from({ length: 30 }, (_, k) => ({ key: keyOf(i + k), value: item(i + k) })));
    await writer.stores.data.removeItem(keyOf(2));
    const second = await processOn(prefix, 5);
    const items = await list(second.registry);
    expect(second.reads()).toBeGreaterThan(0);
    expect(items).toHaveLength(399);
    expect(items.map((e) => e.id)).not.toContain("i0002");

    await second.registry.settle();
    const text = (await writer.stores.indexSnapshots!.read(PREFIX))!.toString("utf8");
    await writer.stores.indexSnapshots!.write(PREFIX, text.replace('"item 12"', '"item X"'));
    const third = await processOn(prefix, 5);
    expect(await list(third.registry)).toEqual(items);
    expect(third.reads()).toBeGreaterThan(0);
  });

  it("is rebuilt when the feed no longer holds the snapshot's position (a feed recreated since)", async () => {
    const { prefix, writer } = await persisted(10);
    // The records change and the stream is replaced by a new one that cannot say what changed before it.
    await writer.stores.data.removeItem(keyOf(3));
    const ioredis = (await import("ioredis")).default;
    const client = new ioredis(redis.url());
    try {
      await client.del(`${prefix}changes`);
    } finally {
      client.disconnect();
    }
    await writer.stores.data.setItem(keyOf(11), item(11));
    const second = await processOn(prefix);
    const ids = (await list(second.registry)).map((e) => e.id);
    expect(second.reads()).toBeGreaterThan(0);
    expect(ids).not.toContain("i0003");
    expect(ids).toContain("i0011");
    expect(ids).toHaveLength(10);
  });

  it("a list while the index is restored answers with the feed's changes since the snapshot, and waits once another arrives", async () => {
    const { prefix, writer } = await persisted(3000);
    // After the snapshot: a newer item, one of the newest renamed and one removed, an old one removed.
    await writer.stores.data.setItem(keyOf(3500), item(3500));
    await writer.stores.data.setItem(keyOf(3000), item(3000, "renamed"));
    await writer.stores.data.removeItem(keyOf(2999));
    await writer.stores.data.removeItem(keyOf(5));
    const firstPage = { field: "created_at", descending: true, limit: 20 } as const;

    const second = await processOn(prefix);
    const listing = await second.registry.listing(PREFIX, toEntry);
    expect(listing).not.toBeInstanceOf(CollectionIndex);
    let page = listing.query(firstPage);
    while (!page) (await listing.progress!(), (page = listing.query(firstPage)));
    const rebuilt = await processOn(prefix);
    await rebuilt.stores.indexSnapshots!.removeAll();
    const truth = await rebuilt.registry.get(PREFIX, toEntry);
    expect(page).toEqual(truth.query(firstPage));
    expect(page.items.slice(0, 3).map((e) => [e.id, e.title])).toEqual([["i3500", "item 3500"], ["i3000", "renamed"], ["i2998", "item 2998"]]);
    expect(second.reads()).toBe(0);

    // A change read from the feed after that: this listing stops answering from the snapshot.
    await writer.stores.data.setItem(keyOf(3501), item(3501));
    await second.registry.sync();
    expect(listing.query(firstPage)?.items[0]?.id ?? "waits").not.toBe("i3500");
    await second.registry.get(PREFIX, toEntry);
    expect(listing.query(firstPage)?.items[0]?.id).toBe("i3501");
  });

  it("a snapshot replaced while it is read block by block is refused, never mixed with the new one", async () => {
    const stores = redis.open({ prefix: `ip${++run}:` });
    const snapshots = stores.indexSnapshots!;
    const before = Array.from({ length: 3000 }, (_, i) => toEntry(item(i + 1))!);
    await snapshots.write(PREFIX, await encodeSnapshot(PREFIX, "s", "t1", before));
    const reading = openSnapshot((await snapshots.open!(PREFIX))!, PREFIX, "s")!;
    expect(await decodeBlock(reading, 2)).toEqual(before.slice(2048));
    const after = before.map((e) => ({ ...e, title: `${e.title}!` }));
    await snapshots.write(PREFIX, await encodeSnapshot(PREFIX, "s", "t2", after));
    expect(await decodeBlock(reading, 1)).toBeNull();
    const reopened = openSnapshot((await snapshots.open!(PREFIX))!, PREFIX, "s")!;
    expect(reopened.token).toBe("t2");
    expect(await decodeBlock(reopened, 1)).toEqual(after.slice(1024, 2048));
  });

  it("a snapshot larger than one write is written through a staging key: whole, without expiry, nothing left behind", async () => {
    const prefix = `ip${++run}:`;
    const stores = redis.open({ prefix });
    const entries = Array.from({ length: 3500 }, (_, i) => ({ ...toEntry(item(i + 1))!, title: `item ${i + 1} with words enough to make each block long` }));
    const parts = await encodeSnapshotParts(PREFIX, "s", "t1", entries);
    const whole = Buffer.concat(parts);
    expect(whole.length).toBeGreaterThan(256 << 10);
    await stores.indexSnapshots!.write(PREFIX, parts);
    expect((await stores.indexSnapshots!.read(PREFIX))?.equals(whole)).toBe(true);
    const client = new Redis(redis.url());
    try {
      expect(await client.keys(`${prefix}ix:*`)).toEqual([`${prefix}ix:${PREFIX}`]);
      expect(await client.ttl(`${prefix}ix:${PREFIX}`)).toBe(-1);
    } finally {
      client.disconnect();
    }
  });
});
