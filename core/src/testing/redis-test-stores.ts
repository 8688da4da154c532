import { Redis } from "ioredis";
import type { Driver } from "unstorage";
import { toStorage, type Stores } from "../storage/create-storage.js";

/**
 * Data and media stores on a Redis for tests of the webhook engine in a cluster: plain keys under `prefix`,
 * batches in MULTI/EXEC. Only what those tests need (the service's Redis store is `--storage redis`).
 */
export function redisTestStores(url: string, prefix: string): Stores {
  const client = new Redis(url, { maxRetriesPerRequest: null });
  client.on("error", () => {});
  const driver = (base: string): Driver => {
    const k = (key: string) => `${prefix}${base}:${key}`;
    return {
      name: "redis-test",
      hasItem: async (key) => (await client.exists(k(key))) === 1,
      getItem: (key) => client.get(k(key)),
      setItem: async (key, value) => void (await client.set(k(key), value)),
      removeItem: async (key) => void (await client.del(k(key))),
      getKeys: async (b) => (await client.keys(`${k(b ?? "")}*`)).map((key) => key.slice(k("").length)),
      clear: async (b) => {
        const keys = await client.keys(`${k(b ?? "")}*`);
        if (keys.length > 0) await client.del(...keys);
      },
    };
  };
  const data = toStorage(driver("data"));
  const media = toStorage(driver("media"));
  return {
    kind: "redis" as Stores["kind"],
    data,
    media,
    async batch(ops) {
      const multi = client.multi();
      for (const op of ops) {
        if ("remove" in op) multi.del(`${prefix}data:${op.key}`);
        else multi.set(`${prefix}data:${op.key}`, JSON.stringify(op.value));
      }
      await multi.exec();
    },
    async dispose() {
      client.disconnect();
    },
  };
}
