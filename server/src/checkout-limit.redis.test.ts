import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import { startServer, type RunningServer } from "./serve.js";

if (!redisAvailable) console.warn(redisSkipReason("the checkout rate limit across processes"));

// Two servers on one Redis stand for two processes behind a load balancer: a client's checkout posts count
// against one limit whichever process answers them.
describe.skipIf(!redisAvailable)("--checkout-rate-limit with processes sharing a Redis", () => {
  let redis: RedisServer;
  const servers: RunningServer[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    for (let i = 0; i < 2; i++) {
      servers.push(await startServer({ storage: "redis", redisUrl: redis.url, redisPrefix: "limit:", port: 0, log: null, admin: false, checkoutRateLimit: { count: 3, windowMs: 60_000 } }));
    }
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await redis?.dispose();
  });

  it("counts the posts each process answers into one window, and refuses past it in both", async () => {
    const [a, b] = servers;
    const account = a.credentials.account_id;
    const product = await a.core.products.create(account, { title: "Shared lamp", price: 12, product_type: "physical" });
    const { job_id } = await a.core.pages.create(account, { product_id: product.id }, null);
    await a.core.onIdle();
    const pageId = (await a.core.pages.getJob(account, job_id)).page_id!;
    await a.core.deployments.start(account, pageId, null);
    await a.core.onIdle();
    const path = new URL((await a.core.pages.get(account, pageId)).deployed_url!).pathname;
    const post = (server: RunningServer) =>
      fetch(`${server.url}${path}checkout`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" });

    const statuses = [];
    for (const server of [a, b, a]) statuses.push((await post(server)).status);
    expect(statuses.every((s) => s !== 429)).toBe(true);
    const refusedByB = await post(b);
    expect(refusedByB.status).toBe(429);
    expect(Number(refusedByB.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await post(a)).status).toBe(429);
  });
});
