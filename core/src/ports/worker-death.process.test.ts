import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createCore } from "../core.js";
import type { DomainEvent } from "../events/event-sink.js";
import { createStores } from "../storage/create-storage.js";
import { useRedisCores } from "../testing/redis-cores.js";
import { redisAvailable, redisSkipReason } from "../testing/redis-server.js";

const fixture = fileURLToPath(new URL("./worker-death.fixture.ts", import.meta.url));
// DESIGN §12: a dead process's work is settled by the others within this.
const SETTLE_BOUND_MS = 30_000;

if (!redisAvailable) console.warn(redisSkipReason("the worker-death suite"));

/**
 * Two real processes on one shared queue: a child starts a slow generation or deployment and is SIGKILLed
 * in the middle; the surviving process (this one), with the queue's default lease settings, settles the
 * work as a restart would, without a restart. Both keep their records on the same Redis.
 */
describe.skipIf(!redisAvailable)("a process killed mid-work on a shared queue", () => {
  const { redis, cores } = useRedisCores();
  let run = 0;

  /** Starts the child, waits until its work is parked, and returns the ids it printed and how to kill it. */
  async function startChild(kind: "generation" | "deployment") {
    const prefix = `wd${++run}:`;
    const child = spawn(process.execPath, ["--import", "tsx", fixture, redis().url, prefix, kind], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    let out = "";
    const ids = await new Promise<Record<string, string>>((resolve, reject) => {
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split("\n").find((l) => l.startsWith('{"parked"'));
        if (line) resolve(JSON.parse(line).parked);
      });
      child.once("exit", (code) => reject(new Error(`the child exited (${code}) before its work was parked: ${out}`)));
    });
    const kill = async () => {
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
    };
    return { prefix, ids, kill };
  }

  /** The surviving process: a core on the same Redis, recording the events it emits. */
  async function survivor(prefix: string) {
    const events: DomainEvent[] = [];
    let seen: ((e: DomainEvent) => void) | null = null;
    const core = await createCore({
      stores: createStores("redis", { url: redis().url, prefix }),
      publicUrl: () => "http://lp.test",
      events: {
        emit: async (e) => {
          events.push(e);
          seen?.(e);
        },
      },
    });
    cores.push(core);
    /** Resolves with the first event (already emitted or to come) that `match` accepts; fails after the bound. */
    const awaitEvent = (match: (e: DomainEvent) => boolean) =>
      new Promise<DomainEvent>((resolve, reject) => {
        const found = events.find(match);
        if (found) return resolve(found);
        const timer = setTimeout(() => reject(new Error(`not settled within ${SETTLE_BOUND_MS} ms of the kill`)), SETTLE_BOUND_MS);
        seen = (e) => {
          if (!match(e)) return;
          clearTimeout(timer);
          resolve(e);
        };
      });
    return { core, events, awaitEvent };
  }

  it("fails its generation job worker_terminated at its step and emits page.generation_failed", { timeout: 60_000 }, async () => {
    const child = await startChild("generation");
    const { core, events, awaitEvent } = await survivor(child.prefix);
    // Start-time recovery leaves alone what a live process holds.
    expect(await core.pages.getJob("acct_dev", child.ids.job_id)).toMatchObject({ status: "processing" });
    expect(events).toEqual([]);

    await child.kill();
    const event = await awaitEvent((e) => e.type === "page.generation_failed");
    expect(event.data).toMatchObject({ job_id: child.ids.job_id, status: "failed", error: { code: "worker_terminated" } });
    const job = await core.pages.getJob("acct_dev", child.ids.job_id);
    expect(job).toMatchObject({ status: "failed", step: "analyzing_product", error: { code: "worker_terminated" } });
    expect(job.error?.message).toContain("analyzing_product");
    // The quota no longer counts it: the survivor generates a page for the account.
    const again = await core.pages.create("acct_dev", { product: { title: "Chair", description: "A chair", price: 5, product_type: "physical" } }, null);
    await core.onIdle();
    expect(await core.pages.getJob("acct_dev", again.job_id)).toMatchObject({ status: "completed" });
  });

  it("fails its deployment worker_terminated at its step, emits deployment.failed, and frees the page", { timeout: 60_000 }, async () => {
    const child = await startChild("deployment");
    const { page_id: pageId, deployment_id: deploymentId } = child.ids;
    const { core, events, awaitEvent } = await survivor(child.prefix);
    expect(await core.deployments.get("acct_dev", pageId, deploymentId)).toMatchObject({ status: "deploying" });
    expect(events).toEqual([]);

    await child.kill();
    const event = await awaitEvent((e) => e.type === "deployment.failed");
    expect(event.data).toMatchObject({ id: deploymentId, status: "failed", error_code: "worker_terminated" });
    expect(await core.deployments.get("acct_dev", pageId, deploymentId)).toMatchObject({
      status: "failed",
      deploy_step: "rendering",
      error_code: "worker_terminated",
    });
    const next = await core.deployments.start("acct_dev", pageId, null);
    await core.onIdle();
    expect(await core.deployments.get("acct_dev", pageId, next.deployment_id)).toMatchObject({ status: "succeeded" });
  });
});
