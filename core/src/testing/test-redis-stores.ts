import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll } from "vitest";
import { createStores, type Stores } from "../storage/create-storage.js";
import { redisAvailable, redisServerBinary, startRedisServer, type RedisServer } from "./redis-server.js";

let local: Promise<RedisServer> | null = null;

/**
 * The redis-server of this test file: `LP_TEST_REDIS_URL`, else one started on first use for this file
 * and stopped after it.
 * Without AOF fsync: these suites test behaviour, not durability (the outage suites start their own).
 */
async function serverUrl(): Promise<string> {
  const given = process.env.LP_TEST_REDIS_URL;
  if (given) return given;
  if (!redisAvailable) throw new Error(`LP_TEST_STORAGE=redis needs redis-server ("${redisServerBinary}" cannot be run: apt-get install redis-server)`);
  local ??= startRedisServer({ appendfsync: "no" });
  return (await local).url;
}

// This module is loaded while vitest collects a test file, so the hook belongs to that file: its own server
// stops when the file is done (a worker is ended by a signal, so an exit handler would leave it running).
afterAll(async () => {
  const started = local;
  local = null;
  if (started) await (await started).dispose();
});

/** Stores under a fresh prefix of the test Redis, and how to remove every key under that prefix afterwards. */
export async function testRedisStores(): Promise<{ stores: Stores; remove(): Promise<void> }> {
  const url = await serverUrl();
  const prefix = `t${process.pid}-${randomBytes(5).toString("hex")}:`;
  const stores = createStores("redis", { url, prefix });
  return {
    stores,
    async remove() {
      // Whatever was written under the prefix (records, media, feed, and keys other parts keep there).
      const client = new Redis(url, { maxRetriesPerRequest: 1 });
      try {
        let cursor = "0";
        do {
          const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
          if (keys.length) await client.unlink(...keys);
          cursor = next;
        } while (cursor !== "0");
      } finally {
        client.disconnect();
      }
    },
  };
}
