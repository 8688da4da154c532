import { toTimestamp } from "../deps.js";
import { isAccountId, isUuid } from "../ids.js";
import type { JobQueue } from "../ports/queue.js";
import { runGeneration, type GenerationDeps } from "./generation-job.js";
import { replayPageJournal, settleJob, type PageJournalDeps } from "./page-journal.js";
import type { JobRecord } from "./page-view.js";

/** What generation's background work needs from the pages service. */
export interface GenerationWorkDeps {
  queue: JobQueue;
  /** Runs a job's steps. */
  run: GenerationDeps;
  /** Settles what a run left unfinished (start-time recovery, a resumed job). */
  journal: PageJournalDeps;
}

/**
 * Generation as a named background job (`generation`, data `{ account_id, job_id }`): whichever process
 * takes it reads the job record and runs it; a resumed run (its first worker died, or it threw) settles the
 * job as a restart would. Registers the handler; returns how to schedule a job and the start-time recovery.
 */
export function createGenerationWork(deps: GenerationWorkDeps) {
  const { queue, journal } = deps;
  queue.handle("generation", async ({ account_id: accountId, job_id: jobId }, { resumed, interruption, signal }) => {
    if (!isAccountId(accountId) || !isUuid(jobId)) throw new Error(`generation job with malformed ids: ${accountId} ${jobId}`);
    if (resumed) return void (await settleJob(journal, accountId, jobId, interruption));
    const job = await journal.readJob(accountId, jobId);
    if (job?.status === "processing") await runGeneration(deps.run, job, signal);
  });

  return {
    /** Queues the job; when it cannot be queued the job is failed (it must not hold quota) and the error rethrown. */
    async schedule(job: JobRecord) {
      try {
        await queue.add("generation", job.job_id, { account_id: job.account_id, job_id: job.job_id });
      } catch (error) {
        const at = toTimestamp(journal.clock.now());
        const failed: JobRecord = { ...job, status: "failed", error: { code: "worker_terminated", message: "The job could not be queued." }, updated_at: at };
        await journal.saveJob(failed).catch(() => {});
        throw error;
      }
    },
    /**
     * Replays the journal a previous process left. On a shared queue, only jobs no live process holds (see
     * `JobQueue.abandoned`); the others are settled by the stalled-job path if their process died.
     */
    recover: () =>
      replayPageJournal(queue.shared ? { ...journal, abandoned: (jobId, since) => queue.abandoned("generation", jobId, since) } : journal),
  };
}
