import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createStores, toStorage } from "./create-storage.js";
import { StorageFaultError } from "./storage-faults.js";
import { createRedisClient, redactRedisUrl } from "./redis-client.js";
import { redisDriver } from "./redis-driver.js";
import { redisLayout } from "./redis-keys.js";
import { testStorageDriver } from "../testing/storage-contract.js";

if (!redisAvailable) console.warn(redisSkipReason("the Redis storage driver suite"));

let server: RedisServer;
let counter = 0;
const clients: Redis[] = [];

describe.skipIf(!redisAvailable)("Redis storage", () => {
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.dispose();
  });

  // Each test gets a fresh prefix on the one server; reopening is a second client on the same prefix.
  testStorageDriver(
    "redis",
    () => {
      const prefix = `t${++counter}:`;
      const open = () => {
        const client = createRedisClient(server.url, { name: "test", log: () => {} });
        clients.push(client);
        return redisDriver({ client, layout: redisLayout(prefix, "d", true) });
      };
      return { driver: open(), reopen: open, dispose: async () => {} };
    },
    {
      refusesUnsafeKeys: true,
      filtersKeysByPrefix: true,
      persistent: true,
      hidesLeftovers: "every write is one MULTI/EXEC, which leaves nothing half-done behind",
      leafAndPrefix: true,
    },
  );

  describe("redis stores", () => {
    it("keeps media bytes and records apart, and lists keys from the child sets without KEYS", async () => {
      const stores = createStores("redis", { url: server.url, prefix: `s${++counter}:` });
      try {
        await stores.data.setItem("products:p1", { id: "p1" });
        await stores.media.setItemRaw("products:p1:img.png", Buffer.from([0, 1, 254, 255]));
        expect(await stores.data.getKeys()).toEqual(["products:p1"]);
        expect(await stores.media.getKeys("products")).toEqual(["products:p1:img.png"]);
        expect(Buffer.from((await stores.media.getItemRaw("products:p1:img.png")) as Uint8Array)).toEqual(Buffer.from([0, 1, 254, 255]));
        // The media store has no change feed entries: only records are followed by other processes.
        const { changes } = await stores.changes!.read("0-0");
        expect(changes).toEqual([{ key: "products:p1", value: { id: "p1" } }]);
      } finally {
        await stores.dispose();
      }
    });

    it("writes only when absent with ifAbsent, first writer wins across clients", async () => {
      const prefix = `n${++counter}:`;
      const a = createStores("redis", { url: server.url, prefix });
      const b = createStores("redis", { url: server.url, prefix });
      try {
        await Promise.all([
          a.data.setItem("meta:secret", { v: "a" }, { ifAbsent: true }),
          b.data.setItem("meta:secret", { v: "b" }, { ifAbsent: true }),
        ]);
        const winner = await a.data.getItem("meta:secret");
        expect(await b.data.getItem("meta:secret")).toEqual(winner);
        await a.data.setItem("meta:secret", { v: "c" }, { ifAbsent: true });
        expect(await a.data.getItem("meta:secret")).toEqual(winner);
        // Only the write that happened is in the feed.
        expect((await a.changes!.read("0-0")).changes).toEqual([{ key: "meta:secret", value: winner }]);
      } finally {
        await Promise.all([a.dispose(), b.dispose()]);
      }
    });

    it("refuses an unsafe key in a batch before writing anything", async () => {
      const stores = createStores("redis", { url: server.url, prefix: `u${++counter}:` });
      try {
        await expect(stores.batch([{ key: "a:b", value: 1 }, { key: "a:..:b", value: 2 }])).rejects.toThrow(/Unsafe/);
        expect(await stores.data.getKeys()).toEqual([]);
      } finally {
        await stores.dispose();
      }
    });

    it("a full Redis (maxmemory, noeviction) refuses writes with a storage fault, not a bug, and reads go on", async () => {
      const stores = createStores("redis", { url: server.url, prefix: `o${++counter}:` });
      const admin = new Redis(server.url);
      try {
        await stores.data.setItem("kept:one", { v: 1 });
        await admin.config("SET", "maxmemory-policy", "noeviction");
        await admin.config("SET", "maxmemory", "1");
        await expect(stores.data.setItem("kept:two", { v: 2 })).rejects.toBeInstanceOf(StorageFaultError);
        await expect(stores.batch([{ key: "kept:three", value: 3 }])).rejects.toMatchObject({ code: "insufficient_storage", details: { reason: "redis_maxmemory" } });
        expect(await stores.data.getItem("kept:one")).toEqual({ v: 1 });
        expect(await stores.changes!.read("0-0")).toMatchObject({ changes: [{ key: "kept:one" }] });
        await admin.config("SET", "maxmemory", "0");
        await stores.data.setItem("kept:two", { v: 2 });
        expect((await stores.data.getKeys("kept")).sort()).toEqual(["kept:one", "kept:two"]);
      } finally {
        await admin.config("SET", "maxmemory", "0");
        admin.disconnect();
        await stores.dispose();
      }
    });

    it("names a Redis without its password", () => {
      expect(redactRedisUrl("redis://user:s3cret@10.0.0.2:6380/1")).toBe("redis://user:***@10.0.0.2:6380/1");
      expect(redactRedisUrl("redis://127.0.0.1:6379/0")).toBe("redis://127.0.0.1:6379/0");
      expect(redactRedisUrl("not a url")).toBe("(invalid Redis URL)");
    });

    it("needs a URL, and refuses a prefix with odd characters", () => {
      expect(() => createStores("redis")).toThrow(/Redis URL/);
      expect(() => createStores("redis", { url: server.url, prefix: "a b" })).toThrow(/prefix/);
    });

    it("a store reopened on the same prefix reads what another wrote", async () => {
      const prefix = `r${++counter}:`;
      const client = createRedisClient(server.url, { name: "test", log: () => {} });
      clients.push(client);
      const one = toStorage(redisDriver({ client, layout: redisLayout(prefix, "d", true) }));
      await one.setItem("x:y", { v: 1 });
      const other = createStores("redis", { url: server.url, prefix });
      try {
        expect(await other.data.getItem("x:y")).toEqual({ v: 1 });
      } finally {
        await other.dispose();
      }
    });
  });
});
