import type { Storage } from "unstorage";
import { toTimestamp, type Clock } from "../deps.js";
import type { EventSink } from "../events/event-sink.js";
import { interruptedMessage, type Interruption } from "../ports/queue.js";
import type { JobRecord, PageRecord } from "./page-view.js";
import { toJobView } from "./page-view.js";
import { skipUnreadable } from "../storage/record-check.js";

/**
 * Journal entries of the page aggregate, replayed at start. A job's in-flight marker
 * (`inflight:jobs:{account}:{job}`) learns the id of the page the job is about to write before the page
 * is written, so a kill between the page and the job's completion is completed, not failed. A deletion
 * (`deleting:pages:{account}:{page}`) holds the whole page record while the page, its deployments, site,
 * owner entry, media and event are removed one by one, so a deletion cut short is finished at the next start.
 */
export const pageJournalKeys = {
  job: (a: string, jobId: string) => `inflight:jobs:${a}:${jobId}`,
  deletion: (a: string, pageId: string) => `deleting:pages:${a}:${pageId}`,
};

/** A job's journal entry. */
export interface JobMarker {
  at: string;
  /** The page the job is writing, once it has chosen one. */
  page_id?: string;
}

/** What recovery needs from the pages service. */
export interface PageJournalDeps {
  storage: Storage;
  clock: Clock;
  events: EventSink;
  readJob: (a: string, jobId: string) => Promise<JobRecord | null>;
  saveJob: (job: JobRecord) => Promise<void>;
  readPage: (a: string, id: string) => Promise<PageRecord | null>;
  /** Emits `page.created` for a page whose job is completed by recovery (the kill may have come before it). */
  announcePage: (page: PageRecord) => Promise<void>;
  builderUrl: (pageId: string) => string;
  /** Removes the media of a page that was never written. */
  removeMedia: (pageId: string) => Promise<void>;
  /** Runs (again) every step of a page's deletion, then drops its journal entry. */
  finishDeletion: (page: PageRecord) => Promise<void>;
  /**
   * On a shared queue: whether job `jobId`'s work is no live process's (see `JobQueue.abandoned`). Absent
   * on a local queue, where everything in the journal at start was left by a process that is gone.
   */
  abandoned?: (jobId: string, since: Date) => Promise<boolean>;
}

/** Replays the journal: finishes deletions, then settles jobs a previous process left processing. */
export async function replayPageJournal(deps: PageJournalDeps): Promise<{ jobs: number; deletions: number }> {
  const { storage } = deps;
  let deletions = 0;
  for (const key of await storage.getKeys("deleting:pages")) {
    const entry = await skipUnreadable(storage.getItem<{ page: PageRecord }>(key));
    if (entry?.page) {
      await deps.finishDeletion(entry.page);
      deletions++;
    } else await storage.removeItem(key);
  }
  let jobs = 0;
  for (const key of await storage.getKeys("inflight:jobs")) {
    const [, , accountId, jobId] = key.split(":");
    if (deps.abandoned) {
      // A shared queue: only work no live process holds (its job is gone from the queue) is settled here.
      const job = await skipUnreadable(deps.readJob(accountId, jobId));
      const marker = await skipUnreadable(storage.getItem<JobMarker>(key));
      const since = job?.updated_at ?? marker?.at;
      if (since && !(await deps.abandoned(jobId, new Date(since)))) continue;
    }
    // A damaged job record is left for `lp doctor` (it is logged); the others settle.
    if (await skipUnreadable(settleJob(deps, accountId, jobId))) jobs++;
  }
  return { jobs, deletions };
}

/**
 * Settles one job whose run ended without finishing it (a restart, or a shared queue's job found stalled):
 * completed if its page was written, else failed with `worker_terminated` and `page.generation_failed`.
 * Returns whether the job was still processing. Safe to repeat.
 */
export async function settleJob(deps: PageJournalDeps, accountId: string, jobId: string, cause: Interruption = "stopped"): Promise<boolean> {
  const { storage } = deps;
  const key = pageJournalKeys.job(accountId, jobId);
  const job = await deps.readJob(accountId, jobId);
  const marker = await storage.getItem<JobMarker>(key);
  const page = marker?.page_id ? await deps.readPage(accountId, marker.page_id) : null;
  if (job?.status !== "processing") {
    // Completed with its page in one change, then killed before `page.created` went out: announce it now
    // (at least once: a kill just after the emit announces it twice).
    if (job?.status === "completed" && page && page.job_id === jobId) await deps.announcePage(page);
    await storage.removeItem(key);
    return false;
  }
  const at = toTimestamp(deps.clock.now());
  if (page && page.job_id === jobId) {
    // Killed after the page was written: the job did its work.
    await deps.announcePage(page);
    await deps.saveJob({ ...job, status: "completed", step: "done", step_detail: "The page is ready", page_id: page.id, builder_url: deps.builderUrl(page.id), updated_at: at, completed_at: page.created_at });
    return true;
  }
  if (marker?.page_id) await deps.removeMedia(marker.page_id);
  const failed: JobRecord = {
    ...job,
    status: "failed",
    error: { code: "worker_terminated", message: interruptedMessage("job", job.step, cause) },
    updated_at: at,
  };
  await deps.saveJob(failed);
  await deps.events.emit({ type: "page.generation_failed", account_id: accountId, data: toJobView(failed) });
  return true;
}
