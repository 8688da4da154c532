import { describe, expect, it } from "vitest";
import { createCore, type Core } from "../core.js";
import { createManualClock } from "../deps.js";
import { createStores } from "../storage/create-storage.js";
import { productListSchema } from "./products-service.js";
import { useRedisCores } from "../testing/redis-cores.js";
import { redisAvailable, redisSkipReason } from "../testing/redis-server.js";

if (!redisAvailable) console.warn(redisSkipReason("the cluster-wide product quota suite"));

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const png = (size: number) => ({ filename: "p.png", bytes: Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]) });
const body = (title: string) => ({ title, price: 5, product_type: "physical" as const });

/** Two processes of one service share a Redis: a quota holds for the pair, not for each. */
describe.skipIf(!redisAvailable)("product and media quotas across processes on Redis", () => {
  const { redis, cores } = useRedisCores();
  async function pair(prefix: string): Promise<[Core, Core]> {
    const open = async () => {
      const core = await createCore({ stores: createStores("redis", { url: redis().url, prefix }), clock: createManualClock("2026-05-01T00:00:00.000Z"), publicUrl: () => "http://lp.test" });
      cores.push(core);
      return core;
    };
    const [a, b] = [await open(), await open()];
    await a.accounts.create({ account_id: "shop", environment: "production", currency: "USD", page_quota: 100, product_quota: 4, media_quota_bytes: 1000 });
    return [a, b];
  }
  const outcomes = (results: PromiseSettledResult<unknown>[]) => results.map((r) => (r.status === "fulfilled" ? "created" : (r.reason as { code: string }).code)).sort();

  it("lets exactly product_quota products in when both processes create at once", async () => {
    const [a, b] = await pair("pq1:");
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).products.create("shop", body(`P${i}`))));
    expect(outcomes(results)).toEqual([...Array(4).fill("created"), ...Array(6).fill("quota_exceeded")]);
    expect((await a.products.list("shop", productListSchema.parse({ per_page: "100" }))).data).toHaveLength(4);
  });

  it("lets exactly media_quota_bytes of uploads in when both processes upload at once", async () => {
    const [a, b] = await pair("pq2:");
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).products.create("shop", body(`U${i}`), [png(300)])));
    expect(outcomes(results)).toEqual([...Array(3).fill("created"), ...Array(3).fill("quota_exceeded")]);
    expect((await b.stores.media.getKeys()).filter((k) => k.startsWith("products:"))).toHaveLength(3);
  });
});
