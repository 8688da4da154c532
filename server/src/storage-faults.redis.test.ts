import { createStores } from "@lp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAdmin } from "../../core/src/testing/redis-admin.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import { createTestApp, type TestApp } from "./testing/test-app.js";

if (!redisAvailable) console.warn(redisSkipReason("Redis at maxmemory"));

// A real Redis made full with `CONFIG SET maxmemory` (policy noeviction, the default): it refuses every
// command that may grow memory with `OOM`, and still answers reads.
describe.skipIf(!redisAvailable)("Redis at maxmemory", () => {
  let redis: RedisServer;
  let admin: ReturnType<typeof redisAdmin>;
  let app: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    redis = await startRedisServer({ appendfsync: "no" });
    admin = redisAdmin(redis.url);
    const stores = createStores("redis", { url: redis.url, prefix: "full:" });
    app = await createTestApp({ stores, coreDeps: { log: (line) => lines.push(line), every: () => () => {} } });
  });
  afterAll(async () => {
    await admin?.call("CONFIG", "SET", "maxmemory", "0").catch(() => {});
    await app?.close();
    admin?.close();
    await redis?.dispose();
  });

  it("refuses writes with 507 redis_maxmemory, serves lists and GETs, says degraded, and recovers", async () => {
    const kept = await app.call("POST", `${app.account}/products`, { body: { title: "Kept", product_type: "physical", price: 10 } });
    expect(kept.status).toBe(201);
    await admin.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
    await admin.call("CONFIG", "SET", "maxmemory", "1");

    // The first refused write is an Idempotency-Key's claim (its executing marker): counted like any other.
    const keyed = { body: { title: "Keyed", product_type: "physical", price: 3 }, headers: { "idempotency-key": "at-maxmemory" } };
    const claimRefused = await app.call("POST", `${app.account}/products`, keyed);
    expect(claimRefused.status).toBe(507);
    expect(claimRefused.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "redis_maxmemory" } });
    expect(app.core.storageHealth.state()).toMatchObject({ reason: "redis_maxmemory", refused: 1 });

    const refused = await app.call("POST", `${app.account}/products`, { body: { title: "Refused", product_type: "physical", price: 1 } });
    expect(refused.status).toBe(507);
    expect(refused.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "redis_maxmemory" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const patched = await app.call("PATCH", `${app.account}/products/${kept.json.data.id}`, { body: { title: "Renamed" } });
    expect(patched.status).toBe(507);

    const list = await app.call("GET", `${app.account}/products`);
    expect(list.status).toBe(200);
    expect(list.json.data.map((p: { title: string }) => p.title)).toEqual(["Kept"]);
    expect((await app.call("GET", `${app.account}/products/${kept.json.data.id}`)).status).toBe(200);
    expect((await app.call("GET", `${app.account}/pages`)).status).toBe(200);
    const health = await app.call("GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: "degraded", storage: "redis", reason: "redis_maxmemory" });
    expect(lines.filter((l) => l.startsWith("storage: Redis at maxmemory"))).toHaveLength(1);
    expect(lines[0]).toMatch(/^storage: Redis at maxmemory at redis:\/\/.* \(prefix full:\) \(OOM\); writes refused until Redis has room$/);

    await admin.call("CONFIG", "SET", "maxmemory", "0");
    expect((await app.call("POST", `${app.account}/products`, { body: { title: "After", product_type: "physical", price: 2 } })).status).toBe(201);
    expect((await app.call("POST", `${app.account}/products`, keyed)).status).toBe(201);
    expect(lines.at(-1)).toMatch(/^storage: writes accepted again/);
    expect((await app.call("GET", "/healthz")).json).toMatchObject({ status: "ok" });
  });
});
