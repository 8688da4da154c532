import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "./redis-server.js";

if (!redisAvailable) console.warn(redisSkipReason("the redis-server harness"));

describe.skipIf(!redisAvailable)("redis-server harness", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it("keeps an acknowledged write across SIGKILL and restart (AOF, appendfsync always)", async () => {
    const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await client.connect();
    expect(await client.set("k", "v")).toBe("OK");
    client.disconnect();
    await server.stop({ hard: true });
    await server.restart();
    const again = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await again.connect();
    expect(await again.get("k")).toBe("v");
    again.disconnect();
  });
});
