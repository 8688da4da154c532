import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore, type Core } from "../core.js";
import type { DomainEvent } from "../events/event-sink.js";
import { createStores } from "../storage/create-storage.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createBullmqQueue } from "./bullmq-queue.js";

if (!redisAvailable) console.warn(redisSkipReason("the Redis restart suite"));

/**
 * redis-server SIGKILLed while a generation runs, and started again on its AOF: the run cannot record its
 * next step, the process does not crash, and once Redis is back the queue runs the job again, resumed,
 * which settles it `worker_terminated` with its event. A job added after the restart completes.
 */
describe.skipIf(!redisAvailable)("Redis killed and restarted mid-run", () => {
  let redis: RedisServer;
  let core: Core;
  const events: DomainEvent[] = [];
  const lines: string[] = [];
  let onNews: (() => void) | null = null;
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      if (check()) return resolve();
      onNews = () => check() && resolve();
    });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let parked!: () => void;
  const atPause = new Promise<void>((resolve) => (parked = resolve));
  beforeAll(async () => {
    redis = await startRedisServer();
    let first = true;
    core = await createCore({
      stores: createStores("redis", { url: redis.url, prefix: "rr:", log: () => {} }),
      queue: createBullmqQueue({ url: redis.url, prefix: "rr", log: (line) => (lines.push(line), onNews?.()) }),
      publicUrl: () => "http://lp.test",
      delays: { generationStepMs: 1, deploymentStepMs: 0 },
      sleep: () => (first ? ((first = false), parked(), released) : Promise.resolve()),
      events: { emit: async (e) => (events.push(e), onNews?.()) },
    });
    await ensureDevCredentials(core.database, core.clock, core.ids);
  });
  afterAll(async () => {
    release?.();
    await core?.close();
    await core?.stores.dispose();
    await redis?.dispose();
  });

  it("settles the job worker_terminated once Redis is back, and takes new jobs", { timeout: 30_000 }, async () => {
    const product = { title: "Plate", description: "A plate", price: 6, product_type: "physical" as const };
    const { job_id } = await core.pages.create("acct_dev", { product }, null);
    await atPause;
    await redis.stop({ hard: true });
    release();
    await until(() => lines.some((line) => line.includes(`generation ${job_id}: Redis unavailable during the run`)));

    await redis.restart();
    await until(() => events.some((e) => e.type === "page.generation_failed"));
    const settled = await core.pages.getJob("acct_dev", job_id);
    expect(settled).toMatchObject({ status: "failed", error: { code: "worker_terminated" } });
    // No server stopped: the message says what cut the run short.
    expect(settled.error?.message).toMatch(/Redis/);
    expect(settled.error?.message).not.toMatch(/server stopped/);

    const again = await core.pages.create("acct_dev", { product }, null);
    await core.onIdle();
    expect(await core.pages.getJob("acct_dev", again.job_id)).toMatchObject({ status: "completed" });
  });
});
