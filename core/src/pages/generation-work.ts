import type { Tx } from "../db/database.js";
import { createWorker, type Worker } from "../db/worker.js";
import type { Scheduler } from "../webhooks/scheduler.js";
import { failJob, runGeneration, settleFailedIn, type GenerationDeps } from "./generation-job.js";
import { isLeaseLost, isStarted, takeOverAtStart, toInterruptedMessage, type Takeover } from "./interrupted-work.js";
import { pageJobQueue, type StoredJob } from "./page-repository.js";

/** What generation's background work needs beside a run's deps. */
export interface GenerationWorkDeps extends GenerationDeps {
  scheduler: Scheduler;
  concurrency?: number;
  leaseMs?: number;
  onError: (name: string, error: unknown) => void;
}

/**
 * Generation as rows of `page_jobs`: a job is due from its creation until it is settled, and a worker
 * (`db/worker.ts`) runs each due job under a lease. A job whose run began and stopped (its process stopped,
 * or lost its lease) is settled when it is taken over: failed with `worker_terminated` at the step it
 * was in, with `page.generation_failed`, and the images it had drawn removed.
 */
export function createGenerationWork(deps: GenerationWorkDeps) {
  const { database, repo, owner } = deps;
  const interrupted = (job: StoredJob) => ({ code: "worker_terminated", message: toInterruptedMessage("job", job.step) });

  const worker: Worker = createWorker({
    database,
    table: pageJobQueue,
    owner,
    clock: deps.clock,
    scheduler: deps.scheduler,
    concurrency: deps.concurrency,
    leaseMs: deps.leaseMs,
    async run(jobId, lease) {
      const job = await repo.readJob(database.db, jobId);
      if (job?.status === "processing") {
        // Written in its product's transaction and never given that product: its request was cut short.
        if (!job.request.product_id) await failJob(deps, job, { code: "worker_terminated", message: "The server stopped while the job was being created." }, { heldBy: owner });
        else if (isStarted(job)) await failJob(deps, job, interrupted(job), { heldBy: owner });
        else await runGeneration(deps, job, lease);
      }
      return { due_at: null };
    },
    onError(jobId, error) {
      if (!isLeaseLost(error)) deps.onError(`generation ${jobId ?? "claim"}`, error);
    },
  });

  /** A job left claimed by a stopped process, settled in `tx` (see {@link takeOverAtStart}). */
  async function settleLeft(tx: Tx, jobId: string): Promise<Takeover> {
    const job = await repo.readJob(tx, jobId);
    if (job?.status !== "processing") return { settled: true };
    if (!isStarted(job)) return { settled: false };
    await settleFailedIn(tx, deps, job, interrupted(job));
    const drawn = job.page_id;
    return { settled: true, after: drawn ? () => deps.media.removePrefix(`pages/${drawn}`) : undefined };
  }

  return {
    worker,
    /** Settles the jobs a stopped process left (SQLite), then takes due jobs; with `left` false (no job stored) there are none yet. */
    async start(options: { left?: boolean } = {}) {
      if (options.left === false) return;
      await takeOverAtStart(database, pageJobQueue, settleLeft);
      worker.wake();
    },
  };
}
