import { afterAll, afterEach, beforeAll } from "vitest";
import { createStores, type Stores } from "../storage/create-storage.js";
import type { RedisStoreOptions } from "../storage/redis-stores.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";

/**
 * For a Redis test suite (call it inside its `describe`): a redis-server of its own (AOF, fsync every
 * second) started before its tests and stopped after them, and stores on it that are disposed after each test.
 */
export function redisSuite() {
  let server: RedisServer | undefined;
  const opened: Stores[] = [];
  beforeAll(async () => {
    server = await startRedisServer({ appendfsync: "everysec" });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.dispose()));
  });
  afterAll(async () => {
    await server?.dispose();
  });
  const url = (): string => {
    if (!server) throw new Error("the suite's redis-server is not started yet (use it inside a test)");
    return server.url;
  };
  return {
    url,
    /** Stores on the suite's server, disposed after the test. */
    open(options: Omit<RedisStoreOptions, "url">): Stores {
      const stores = createStores("redis", { ...options, url: url() });
      opened.push(stores);
      return stores;
    },
  };
}
