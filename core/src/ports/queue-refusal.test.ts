import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore, type Core } from "../core.js";
import { createManualClock } from "../deps.js";
import { createStores } from "../storage/create-storage.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createBullmqQueue } from "./bullmq-queue.js";
import type { JobQueue } from "./queue.js";

if (!redisAvailable) console.warn(redisSkipReason("the queue refusal suite"));

/**
 * A job that cannot be queued (the queue's Redis unreachable while the records could be written) fails the
 * request with service_unavailable, and the job or deployment it had written is failed at once: it holds
 * no quota and no claim. The records sit in memory here so that only the queue is down.
 */
describe.skipIf(!redisAvailable)("a job the queue refuses", () => {
  let redis: RedisServer;
  let queue: JobQueue;
  let core: Core;
  beforeAll(async () => {
    redis = await startRedisServer();
    queue = createBullmqQueue({ url: redis.url, prefix: "refusal", log: () => {} });
    const clock = createManualClock("2026-05-01T00:00:00.000Z");
    core = await createCore({ stores: createStores("memory"), queue, clock, publicUrl: () => "http://lp.test" });
    await ensureDevCredentials(core.database, clock, core.ids);
  });
  afterAll(async () => {
    await core?.close();
    await redis?.dispose();
  });

  it("fails the request 503 and leaves the job failed (no quota held) and the page free", async () => {
    const { job_id } = await core.pages.create("acct_dev", { product: { title: "Vase", description: "A vase", price: 9, product_type: "physical" } }, null);
    await core.onIdle();
    const pageId = (await core.pages.getJob("acct_dev", job_id)).page_id!;

    await redis.stop();
    await expect(core.deployments.start("acct_dev", pageId, null)).rejects.toMatchObject({ code: "service_unavailable" });
    const [refused] = (await core.deployments.list("acct_dev", pageId, { per_page: 20 })).data;
    expect(refused).toMatchObject({ status: "failed", error_code: "worker_terminated" });
    const product = { title: "Jug", description: "A jug", price: 4, product_type: "physical" as const };
    await expect(core.pages.create("acct_dev", { product }, null)).rejects.toMatchObject({ code: "service_unavailable" });
    // The refused job is failed, so the quota does not count it, and nothing is left in the journal.
    const jobs = await Promise.all((await core.stores.data.getKeys("acct:acct_dev:jobs")).map((key) => core.stores.data.getItem<{ status: string; error: unknown }>(key)));
    expect(jobs.map((j) => j?.status).sort()).toEqual(["completed", "failed"]);
    expect(jobs.find((j) => j?.status === "failed")?.error).toMatchObject({ code: "worker_terminated" });
    expect(await core.stores.data.getKeys("inflight")).toEqual([]);

    await redis.restart();
    // As a client told Retry-After would: again until the queue's connection is back (each try waits for it up to 1 s).
    let next: { deployment_id: string } | null = null;
    for (let attempt = 0; attempt < 10 && !next; attempt++) {
      next = await core.deployments.start("acct_dev", pageId, null).catch((error: { code?: string }) => {
        if (error.code !== "service_unavailable") throw error;
        return null;
      });
    }
    if (!next) throw new Error("the queue did not take jobs again after Redis came back");
    await core.onIdle();
    expect(await core.deployments.get("acct_dev", pageId, next.deployment_id)).toMatchObject({ status: "succeeded" });
  });
});
