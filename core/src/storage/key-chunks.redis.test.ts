import type { Storage } from "unstorage";
import { describe, expect, it } from "vitest";
import type { IndexEntry } from "../lists/collection-index.js";
import { buildIndex } from "../lists/index-build.js";
import { item, PREFIX, referenceIndex, seedItems, toEntry } from "../lists/index-items.fixture.js";
import { redisAvailable, redisSkipReason } from "../testing/redis-server.js";
import { redisSuite } from "../testing/redis-suite.js";
import { directKeys } from "./key-chunks.js";

if (!redisAvailable) console.warn(redisSkipReason("the chunked key listing on Redis"));

/** What an index build read before: `getKeys`, then the keys at the prefix's depth. */
async function directByGetKeys(storage: Storage, prefix: string): Promise<string[]> {
  const depth = prefix.split(":").length + 1;
  return (await storage.getKeys(prefix)).filter((key) => key.split(":").length === depth).sort();
}

async function listed(storage: Storage, prefix: string): Promise<string[][]> {
  const chunks: string[][] = [];
  for await (const chunk of directKeys(storage, prefix)) chunks.push(chunk);
  return chunks;
}

describe.skipIf(!redisAvailable)("directKeys and buildIndex on Redis", () => {
  const redis = redisSuite();
  let run = 0;
  const open = () => {
    return redis.open({ prefix: `kc${++run}:` });
  };

  it("lists exactly the keys getKeys lists directly under the prefix, a SSCAN page at a time", async () => {
    const stores = open();
    const keys = Array.from({ length: 3000 }, (_, i) => ({ key: `acct:a:products:p${i}`, value: { i } }));
    await stores.batch(keys);
    await stores.batch([
      { key: "acct:a:products:p1:variants:v1", value: { below: true } },
      { key: "acct:a:products:nest:deep", value: { below: true } },
      { key: "acct:a:productsx", value: { other: true } },
      { key: "acct:a:products2:q", value: { other: true } },
      { key: "acct:b:products:p1", value: { other: true } },
    ]);
    await stores.data.removeItem("acct:a:products:p7");
    const expected = await directByGetKeys(stores.data, "acct:a:products");
    expect(expected).toHaveLength(2999);
    const chunks = await listed(stores.data, "acct:a:products");
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat().sort()).toEqual(expected);
  });

  it("lists nothing for a collection with no records, one whose records are all removed, or one with only deeper keys", async () => {
    const stores = open();
    await stores.data.setItem("acct:a:gone:x", { x: 1 });
    await stores.data.removeItem("acct:a:gone:x");
    await stores.data.setItem("acct:a:deeper:x:y", { x: 1 });
    for (const prefix of ["acct:a:missing", "acct:a:gone", "acct:a:deeper"]) {
      expect(await directByGetKeys(stores.data, prefix)).toEqual([]);
      expect(await listed(stores.data, prefix)).toEqual([]);
    }
  });

  it("builds the same index as reading every listed record", async () => {
    const stores = open();
    await seedItems(stores.data, 1500);
    const built = await buildIndex(stores.data, PREFIX, toEntry as (r: unknown) => IndexEntry | null);
    const expected = await referenceIndex(stores.data, PREFIX);
    expect(expected).toHaveLength(1500 - Math.floor(1500 / 7));
    expect(built.entriesByCreated()).toEqual(expected);
    expect(built.query({ field: "created_at", descending: true, limit: 1 }).items[0]?.id).toBe(item(1500).id);
  });
});
