import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import { startServer, type RunningServer } from "./serve.js";

if (!redisAvailable) console.warn(redisSkipReason("the Redis outage suite"));

/** Polls until `check` holds: the only way to learn that a reconnecting client is back (bounded). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!redisAvailable)("lp serve on Redis while Redis is down and back", () => {
  let redis: RedisServer;
  let server: RunningServer;
  const logged: string[] = [];
  const originalError = console.error;
  beforeAll(async () => {
    redis = await startRedisServer({ appendfsync: "always" });
    // The outage lines go to stderr through console.error: kept to check they are said once, not per command.
    console.error = (...args: unknown[]) => void logged.push(args.map(String).join(" "));
    server = await startServer({ storage: "redis", redisUrl: redis.url, redisPrefix: "outage:", port: 0, log: null });
  });
  afterAll(async () => {
    console.error = originalError;
    await server?.close();
    await redis?.dispose();
  });

  const products = () => `${server.url}/v1/accounts/${server.credentials.account_id}/products`;
  const auth = () => ({ authorization: `Bearer ${server.credentials.token}` });
  const create = (title: string) =>
    fetch(products(), { method: "POST", headers: { ...auth(), "content-type": "application/json" }, body: JSON.stringify({ title, price: 5, product_type: "physical" }) });

  it("answers 503 service_unavailable with Retry-After while Redis is killed, then serves again with every acknowledged write", async () => {
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await create(`before ${i}`);
      expect(res.status).toBe(201);
      acknowledged.push((await res.json()).data.id);
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    await redis.stop({ hard: true });
    const write = await create("during");
    expect(write.status).toBe(503);
    expect(write.headers.get("retry-after")).toBe("1");
    expect((await write.json()).error).toMatchObject({ code: "service_unavailable", details: { retry_after_seconds: 1 } });
    const read = await fetch(`${products()}/${acknowledged[0]}`, { headers: auth() });
    expect(read.status).toBe(503);
    expect(read.headers.get("retry-after")).toBe("1");
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "unavailable", storage: "redis" });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    // Many requests during the outage: each a 503, none a 500, and the process keeps answering.
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? create(`burst ${i}`) : fetch(products(), { headers: auth() }))));
    expect(burst.map((res) => res.status)).toEqual(Array(20).fill(503));

    await redis.restart();
    await eventually(async () => (await fetch(`${server.url}/healthz`)).status === 200, "healthz back to 200");
    for (const id of acknowledged) expect((await fetch(`${products()}/${id}`, { headers: auth() })).status).toBe(200);
    const after = await create("after");
    expect(after.status).toBe(201);
    // The outage was reported, but once per connection and outage, not once per failed command.
    expect(logged.filter((line) => line.includes("[lp] redis (data)") && line.includes("retrying")).length).toBeLessThanOrEqual(2);
    expect(logged.some((line) => line.includes("connection restored"))).toBe(true);
  });
});
