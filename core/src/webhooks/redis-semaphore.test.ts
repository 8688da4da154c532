import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createRedisSemaphore, SemaphoreClosedError } from "./redis-semaphore.js";

if (!redisAvailable) console.warn(redisSkipReason("the Redis semaphore of webhook endpoints"));

describe.skipIf(!redisAvailable)("Redis semaphore with leases", () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(server.url, { maxRetriesPerRequest: null });
    client.on("error", () => {});
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server?.dispose();
  });

  it("holds a limit over two holders (two connections, as two processes), never more at once", async () => {
    const options = { prefix: "t1:", leaseMs: 30_000, token: randomUUID };
    const a = createRedisSemaphore(connect(), options);
    const b = createRedisSemaphore(connect(), options);
    let inside = 0;
    let most = 0;
    const task = async () => {
      inside += 1;
      most = Math.max(most, inside);
      // Gives the other holder's tries a chance to run while this one holds its slot.
      await new Promise((resolve) => setImmediate(resolve));
      inside -= 1;
    };
    await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).run("ep", 2, task)));
    expect(most).toBe(2);
    expect(await a.holders("ep")).toBe(0);
  });

  it("frees the slot of a holder that died when its lease ends", async () => {
    const options = { prefix: "t2:", leaseMs: 300, token: randomUUID };
    const dying = connect();
    const first = createRedisSemaphore(dying, options);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inSlot = new Promise<void>((resolve) => (entered = resolve));
    void first.run("ep", 1, async () => (entered(), await held)).catch(() => {});
    await inSlot;
    // The holder's connection goes away without releasing (as a process killed mid-attempt).
    dying.disconnect();
    const other = createRedisSemaphore(connect(), options);
    expect(await other.holders("ep")).toBe(1);
    await expect(other.run("ep", 1, async () => "after the lease")).resolves.toBe("after the lease");
    release();
  });

  it("turns waiters away on close", async () => {
    const sem = createRedisSemaphore(connect(), { prefix: "t3:", leaseMs: 30_000, token: randomUUID });
    let release!: () => void;
    const held = sem.run("ep", 1, () => new Promise<void>((resolve) => (release = resolve)));
    await expect.poll(() => sem.holders("ep")).toBe(1);
    const waiting = sem.run("ep", 1, async () => "never");
    sem.close();
    await expect(waiting).rejects.toBeInstanceOf(SemaphoreClosedError);
    release();
    await held;
  });
});
