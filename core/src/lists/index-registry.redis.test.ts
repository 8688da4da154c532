import { describe, expect, it } from "vitest";
import type { RecordChange } from "../storage/create-storage.js";
import { redisAvailable, redisSkipReason } from "../testing/redis-server.js";
import { redisSuite } from "../testing/redis-suite.js";
import { IndexRegistry } from "./index-registry.js";

if (!redisAvailable) console.warn(redisSkipReason("the feed-synced list indexes"));

interface Item {
  id: string;
  created_at: string;
  title: string;
  gone?: boolean;
}
const toEntry = (r: Item) => (r.gone ? null : { id: r.id, created_at: r.created_at, title: r.title });
const PREFIX = "acct:a:items";
const item = (i: number, title = `item ${i}`): Item => ({ id: `i${String(i).padStart(4, "0")}`, created_at: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z`, title });
const ids = async (registry: IndexRegistry) => [...(await registry.get(PREFIX, toEntry)).values()].map((e) => e.id).sort();

describe.skipIf(!redisAvailable)("index registry on a shared store", () => {
  const redis = redisSuite();
  let run = 0;
  // Two Stores on one Redis: the writer stands for another process, the registry reads through its own.
  const pair = async (feedMaxLength?: number) => {
    const prefix = `ir${++run}:`;
    const [writer, reader] = [0, 1].map(() => redis.open({ prefix, feedMaxLength }));
    const registry = new IndexRegistry(reader!.data, reader!.changes);
    await registry.start();
    return { writer: writer!, registry };
  };

  it("shows another process's inserts, updates and removals at the next use", async () => {
    const { writer, registry } = await pair();
    expect(await ids(registry)).toEqual([]);
    await writer.batch([1, 2, 3].map((i) => ({ key: `${PREFIX}:${item(i).id}`, value: item(i) })));
    expect(await ids(registry)).toEqual(["i0001", "i0002", "i0003"]);
    await writer.data.setItem(`${PREFIX}:${item(2).id}`, item(2, "renamed"));
    await writer.data.removeItem(`${PREFIX}:${item(1).id}`);
    // A record whose toEntry is null (soft-deleted) leaves the index too.
    await writer.data.setItem(`${PREFIX}:${item(3).id}`, { ...item(3), gone: true });
    const index = await registry.get(PREFIX, toEntry);
    expect([...index.values()]).toEqual([{ id: "i0002", created_at: item(2).created_at, title: "renamed" }]);
    // Keys of other collections and deeper levels leave this index alone.
    await writer.data.setItem(`acct:a:other:${item(9).id}`, item(9));
    expect(await ids(registry)).toEqual(["i0002"]);
  });

  it("tells listeners of every change, and reloads from the store after a gap in the feed", async () => {
    const { writer, registry } = await pair(10);
    const heard: (RecordChange | null)[] = [];
    registry.onChange((c) => heard.push(c));
    expect(await ids(registry)).toEqual([]);
    await writer.data.setItem(`${PREFIX}:${item(1).id}`, item(1));
    expect(await ids(registry)).toEqual(["i0001"]);
    expect(heard).toEqual([{ key: `${PREFIX}:i0001`, value: item(1) }]);
    // Far more writes than the feed keeps: the registry's cursor falls behind the trimmed stream.
    for (let start = 0; start < 600; start += 100) {
      await writer.batch(Array.from({ length: 100 }, (_, k) => ({ key: `${PREFIX}:${item(start + k + 2).id}`, value: item(start + k + 2) })));
    }
    expect(await ids(registry)).toHaveLength(601);
    expect(heard.at(-1)).toBeNull();
  });
});
