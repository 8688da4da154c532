import { describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore, type Core } from "../core.js";
import { createManualClock } from "../deps.js";
import type { DeploymentRecord } from "../deployments/deployment-view.js";
import type { JobRecord } from "../pages/page-view.js";
import { createStores } from "../storage/create-storage.js";
import { useRedisCores } from "../testing/redis-cores.js";
import { redisAvailable, redisSkipReason } from "../testing/redis-server.js";

if (!redisAvailable) console.warn(redisSkipReason("the shared start-time recovery suite"));

const T0 = "2026-05-01T00:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

/**
 * Start-time recovery on Redis settles only journal entries no queued or running job holds, and only once
 * their record is older than the grace (30 s) in which a request may be between writing it and queueing its
 * job. The states are written by hand, as a process killed in that instant would leave them.
 */
describe.skipIf(!redisAvailable)("start-time recovery on a shared queue", () => {
  const { redis, cores } = useRedisCores();

  async function open(now: string): Promise<Core> {
    const clock = createManualClock(now);
    const core = await createCore({ stores: createStores("redis", { url: redis().url, prefix: "sr:" }), clock, publicUrl: () => "http://lp.test" });
    await ensureDevCredentials(core.database, clock, core.ids);
    cores.push(core);
    return core;
  }

  it("fails an old job and deployment whose job was never queued, and leaves a young one to its request", async () => {
    const first = await open(T0);
    const { job_id } = await first.pages.create("acct_dev", { product: { title: "Sweep", description: "A page", price: 5, product_type: "service" } }, null);
    await first.onIdle();
    const data = first.stores.data;
    const job = (await data.getItem<JobRecord>(`acct:acct_dev:jobs:${job_id}`))!;
    const pageId = job.page_id!;
    const started = await first.deployments.start("acct_dev", pageId, null);
    await first.onIdle();
    const deployment = (await data.getItem<DeploymentRecord>(`acct:acct_dev:deployments:${pageId}:${started.deployment_id}`))!;

    // Records and journal entries of work whose job is not in the queue: two jobs (one written 60 s before
    // the next start, one 15 s before) and a deployment written 60 s before.
    const orphan = (id: string, updatedAt: string): JobRecord => ({ ...job, job_id: id, status: "processing", step: "writing_copy", page_id: null, builder_url: null, completed_at: null, updated_at: updatedAt });
    const [oldId, youngId] = [first.ids.uuid(), first.ids.uuid()];
    for (const [id, updatedAt] of [[oldId, at(0)], [youngId, at(45)]] as const) {
      await data.setItem(`acct:acct_dev:jobs:${id}`, orphan(id, updatedAt));
      await data.setItem(`inflight:jobs:acct_dev:${id}`, { at: updatedAt });
    }
    const stuck: DeploymentRecord = { ...deployment, id: first.ids.uuid(), status: "deploying", deploy_step: "uploading", deployed_url: null, deployed_at: null, updated_at: at(0) };
    await data.setItem(`acct:acct_dev:deployments:${pageId}:${stuck.id}`, stuck);
    await data.setItem(`acct:acct_dev:activedeploy:${pageId}`, { deployment_id: stuck.id });
    await data.setItem(`inflight:deployments:acct_dev:${pageId}:${stuck.id}`, { at: at(0) });

    const second = await open(at(60));
    expect(await second.pages.getJob("acct_dev", oldId)).toMatchObject({ status: "failed", step: "writing_copy", error: { code: "worker_terminated" } });
    expect(await second.pages.getJob("acct_dev", youngId)).toMatchObject({ status: "processing" });
    expect(await second.stores.data.getItem(`inflight:jobs:acct_dev:${youngId}`)).not.toBeNull();
    expect(await second.deployments.get("acct_dev", pageId, stuck.id)).toMatchObject({ status: "failed", deploy_step: "uploading", error_code: "worker_terminated" });
    // The page is free again.
    const next = await second.deployments.start("acct_dev", pageId, null);
    await second.onIdle();
    expect(await second.deployments.get("acct_dev", pageId, next.deployment_id)).toMatchObject({ status: "succeeded" });
  });
});
