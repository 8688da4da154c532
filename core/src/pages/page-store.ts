import type { Storage } from "unstorage";
import type { IndexRegistry } from "../lists/index-registry.js";
import type { LockLease } from "../ports/lock.js";
import type { BatchFence, BatchOp } from "../storage/create-storage.js";
import { pageJournalKeys, type JobMarker } from "./page-journal.js";
import { toJobEntry, toPageEntry, type JobRecord, type PageRecord } from "./page-view.js";

/** Storage keys of the page aggregate (pages, their generation jobs, the owner lookup, the journal). */
export const pageKeys = {
  page: (a: string, id: string) => `acct:${a}:pages:${id}`,
  pages: (a: string) => `acct:${a}:pages`,
  job: (a: string, jobId: string) => `acct:${a}:jobs:${jobId}`,
  jobs: (a: string) => `acct:${a}:jobs`,
  /** Which account a page belongs to, for the builder preview (its URL names no account). */
  owner: (pageId: string) => `pageowners:${pageId}`,
  inflight: pageJournalKeys.job,
  deletion: pageJournalKeys.deletion,
};

/** What the page store writes through. */
export interface PageStoreDeps {
  storage: Storage;
  batch: (ops: readonly BatchOp[], fence?: BatchFence) => Promise<void>;
  indexes: IndexRegistry;
}

/** The job a successful generation ends with: the same record recovery writes for a page already stored. */
export function completedJob(job: JobRecord, page: PageRecord, builderUrl: string): JobRecord {
  return {
    ...job,
    status: "completed",
    step: "done",
    step_detail: "The page is ready",
    page_id: page.id,
    builder_url: builderUrl,
    updated_at: page.created_at,
    completed_at: page.created_at,
  };
}

/**
 * The one place pages and generation jobs are written. Every change that spans records is one
 * {@link PageStoreDeps.batch}: atomic on a shared store (no process sees half of it), in order on memory and
 * fs, where the journal entries (`inflight:jobs:...`, `deleting:pages:...`) cover a kill between writes.
 * A change made under a lock is fenced by its lease: a shared store refuses it once the lease has ended.
 */
export function createPageStore(deps: PageStoreDeps) {
  const { storage, batch } = deps;
  const pagesIndex = (a: string) => deps.indexes.get(pageKeys.pages(a), toPageEntry);
  const jobsIndex = (a: string) => deps.indexes.get(pageKeys.jobs(a), toJobEntry);
  const pagesListing = (a: string) => deps.indexes.listing(pageKeys.pages(a), toPageEntry);

  return {
    pagesIndex,
    /** What the pages listing asks its page of (`IndexRegistry.listing`). */
    pagesListing,
    jobsIndex,
    readPage: (a: string, id: string) => storage.getItem<PageRecord>(pageKeys.page(a, id)),
    readJob: (a: string, jobId: string) => storage.getItem<JobRecord>(pageKeys.job(a, jobId)),
    readOwner: (pageId: string) => storage.getItem<{ account_id: string }>(pageKeys.owner(pageId)),

    /** A job's progress; a settled job closes its journal entry in the same batch. */
    async saveJob(job: JobRecord) {
      const ops: BatchOp[] = [{ key: pageKeys.job(job.account_id, job.job_id), value: job }];
      if (job.status !== "processing") ops.push({ key: pageKeys.inflight(job.account_id, job.job_id), remove: true });
      await batch(ops);
      await deps.indexes.update(pageKeys.jobs(job.account_id), toJobEntry, (index) => index.upsert(toJobEntry(job)));
    },

    /** Closes a job's journal entry once everything it stood for (the page's announcement) is done. */
    closeJournal: (job: JobRecord) => storage.removeItem(pageKeys.inflight(job.account_id, job.job_id)),

    /** Notes in the job's journal entry which page it is about to write. */
    async reservePage(job: JobRecord, pageId: string) {
      await storage.setItem(pageKeys.inflight(job.account_id, job.job_id), { at: job.created_at, page_id: pageId } satisfies JobMarker);
    },

    /**
     * A generated page, its owner entry, and its job completed: one change (the quota never counts both).
     * The job's journal entry stays until `page.created` is emitted ({@link closeJournal}): a kill in between
     * leaves it, and recovery announces the page.
     */
    async createPage(page: PageRecord, job: JobRecord, builderUrl: string, lease?: LockLease) {
      const done = completedJob(job, page, builderUrl);
      // Fenced by the slug lock: a holder whose lease ended cannot write a slug another may have taken.
      await batch(
        [
          { key: pageKeys.page(page.account_id, page.id), value: page },
          { key: pageKeys.owner(page.id), value: { account_id: page.account_id } },
          { key: pageKeys.job(job.account_id, job.job_id), value: done },
        ],
        lease?.fence,
      );
      await deps.indexes.update(pageKeys.pages(page.account_id), toPageEntry, (index) => index.upsert(toPageEntry(page)));
      await deps.indexes.update(pageKeys.jobs(job.account_id), toJobEntry, (index) => index.upsert(toJobEntry(done)));
    },

    /** A page's own record changed (theme, SEO, deployment state); fenced by the page's lock when given. */
    async savePage(page: PageRecord, fence?: BatchFence, also: readonly BatchOp[] = []) {
      const key = pageKeys.page(page.account_id, page.id);
      if (fence || also.length > 0) await batch([{ key, value: page }, ...also], fence);
      else await storage.setItem(key, page);
      await deps.indexes.update(pageKeys.pages(page.account_id), toPageEntry, (index) => index.upsert(toPageEntry(page)));
    },

    /** Opens a deletion: the journal entry holds the whole page until every step is done. */
    beginDeletion: (page: PageRecord) => storage.setItem(pageKeys.deletion(page.account_id, page.id), { page }),

    /** The page and its owner entry, together. */
    async removePage(page: PageRecord) {
      await batch([
        { key: pageKeys.page(page.account_id, page.id), remove: true },
        { key: pageKeys.owner(page.id), remove: true },
      ]);
      await deps.indexes.update(pageKeys.pages(page.account_id), toPageEntry, (index) => index.remove(page.id));
    },

    endDeletion: (page: PageRecord) => storage.removeItem(pageKeys.deletion(page.account_id, page.id)),
  };
}

export type PageStore = ReturnType<typeof createPageStore>;
