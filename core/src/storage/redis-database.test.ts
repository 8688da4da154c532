import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createRedisStores } from "./redis-stores.js";
import { checkRedisAtStart, RedisStartError } from "./redis-preflight.js";

if (!redisAvailable) console.warn(redisSkipReason("the Redis database-number tests"));

const keysIn = (port: number, db: number) => Number(spawnSync("redis-cli", ["-p", String(port), "-n", String(db), "DBSIZE"], { encoding: "utf8" }).stdout.trim());

/**
 * A URL naming a database the server does not have: the start-up check refuses it, and stores opened on it
 * anyway (as after a restart of Redis with a lower `databases` setting) fail every command instead of
 * reading and writing database 0, which ioredis would otherwise fall back to.
 */
describe.skipIf(!redisAvailable)("a Redis database number out of range", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer({ args: ["--databases", "2"] });
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it("is refused by the start-up check, naming the database", async () => {
    await expect(checkRedisAtStart(`redis://127.0.0.1:${redis.port}/5`, "lp:")).rejects.toThrow(RedisStartError);
    await expect(checkRedisAtStart(`redis://127.0.0.1:${redis.port}/5`, "lp:")).rejects.toThrow(/database 5 does not exist/);
    await expect(checkRedisAtStart(`redis://127.0.0.1:${redis.port}/1`, "lp:")).resolves.toMatchObject({ hadData: false });
  });

  it("never serves database 0: every write fails and database 0 stays empty", async () => {
    const stores = createRedisStores({ url: `redis://127.0.0.1:${redis.port}/5`, log: () => {} });
    try {
      for (let i = 0; i < 5; i++) {
        await expect(stores.data.setItem(`probe:${i}`, { i })).rejects.toThrow();
        await expect(stores.data.getItem(`probe:${i}`)).rejects.toThrow();
      }
      expect(keysIn(redis.port, 0)).toBe(0);
    } finally {
      await stores.dispose();
    }
  });
});
