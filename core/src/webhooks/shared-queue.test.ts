import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createSharedQueue, type SharedJob } from "./shared-queue.js";

if (!redisAvailable) console.warn(redisSkipReason("the webhook engine's shared queue"));

describe.skipIf(!redisAvailable)("the webhook engine's BullMQ queue", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ appendfsync: "everysec" });
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it("runs a fan-out once when a second process queues it again while the first runs it", async () => {
    const errors: unknown[] = [];
    const cluster = { url: server.url, prefix: "q1:" };
    const first = createSharedQueue(cluster, (_what, error) => errors.push(error));
    const second = createSharedQueue(cluster, (_what, error) => errors.push(error));
    const runs: SharedJob[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    first.start(async (job) => {
      runs.push(job);
      started();
      await held;
    });
    await first.add({ kind: "fanout", event_id: "evt_1" }, "fan.evt_1");
    await running;
    // The second process's start-up recovery, and the periodic sweep, queue the same event again.
    await second.add({ kind: "fanout", event_id: "evt_1" }, "fan.evt_1");
    await second.add({ kind: "fanout", event_id: "evt_1" }, "fan.evt_1");
    release();
    await expect.poll(() => first.busy(), { timeout: 10_000, interval: 20 }).toBe(false);
    expect(runs).toEqual([{ kind: "fanout", event_id: "evt_1" }]);
    await Promise.all([first.close(), second.close()]);
    expect(errors).toEqual([]);
  });

  it("keeps a delayed job out of `busy` until it is due", async () => {
    const queue = createSharedQueue({ url: server.url, prefix: "q2:" }, () => {});
    await queue.add({ kind: "attempt", id: "dlv_1", endpoint_id: "we_1" }, "dlv_1.1", 60_000);
    expect(await queue.busy()).toBe(false);
    await queue.add({ kind: "attempt", id: "dlv_2", endpoint_id: "we_1" }, "dlv_2.1");
    expect(await queue.busy()).toBe(true);
    await queue.close();
  });
});
