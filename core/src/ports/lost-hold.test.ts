import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore, type Core } from "../core.js";
import type { DomainEvent } from "../events/event-sink.js";
import { createStores } from "../storage/create-storage.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createBullmqQueue } from "./bullmq-queue.js";

if (!redisAvailable) console.warn(redisSkipReason("the lost-hold suite"));

/**
 * A run whose lock is gone (an outage of Redis outlasted it) may be settled elsewhere while it goes on. Here
 * the lock of a parked generation is deleted by hand: the queue finds the job stalled and settles it as
 * resumed, and the original run, once it wakes, stops without writing: the job stays failed, no page appears.
 * With a 1 s lease the worker's renewal may find the lock gone first; with a 20 s one no renewal comes before the
 * stalled-job check, and the job is handed again to this same worker while its first run is parked.
 */
describe.skipIf(!redisAvailable).each([1000, 20_000])("a run that lost its hold on the job (lease %i ms)", (lockDurationMs) => {
  let redis: RedisServer;
  let core: Core;
  let client: Redis;
  const events: DomainEvent[] = [];
  let onEvent: (() => void) | null = null;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let parked!: () => void;
  const atPause = new Promise<void>((resolve) => (parked = resolve));
  beforeAll(async () => {
    redis = await startRedisServer();
    client = new Redis(redis.url);
    let first = true;
    core = await createCore({
      stores: createStores("redis", { url: redis.url, prefix: "lh:" }),
      queue: createBullmqQueue({ url: redis.url, prefix: "lh", lockDurationMs, stalledIntervalMs: 300, log: () => {} }),
      publicUrl: () => "http://lp.test",
      delays: { generationStepMs: 1, deploymentStepMs: 0 },
      // The first step pause holds the run until the test releases it.
      sleep: () => (first ? ((first = false), parked(), released) : Promise.resolve()),
      events: {
        emit: async (e) => {
          events.push(e);
          onEvent?.();
        },
      },
    });
    await ensureDevCredentials(core.database, core.clock, core.ids);
  });
  afterAll(async () => {
    release?.();
    await core?.close();
    await core?.stores.dispose();
    client?.disconnect();
    await redis?.dispose();
  });

  it("is settled worker_terminated by the queue, and the original run writes nothing more", { timeout: 30_000 }, async () => {
    const { job_id } = await core.pages.create("acct_dev", { product: { title: "Bowl", description: "A bowl", price: 7, product_type: "physical" } }, null);
    await atPause;
    const failed = new Promise<void>((resolve) => (onEvent = () => events.some((e) => e.type === "page.generation_failed") && resolve()));
    expect(await client.del(`lh:background:generation-${job_id}:lock`)).toBe(1);
    await failed;
    expect(await core.pages.getJob("acct_dev", job_id)).toMatchObject({ status: "failed", error: { code: "worker_terminated" } });

    release();
    await core.onIdle();
    expect(await core.pages.getJob("acct_dev", job_id)).toMatchObject({ status: "failed", error: { code: "worker_terminated" } });
    expect(events.map((e) => e.type).filter((t) => t.startsWith("page."))).toEqual(["page.generation_failed"]);
  });
});
