import type { AccountsService } from "../accounts/accounts-service.js";
import type { ChangeMark } from "../db/change-mark.js";
import type { Tx } from "../db/database.js";
import { DEFAULT_LEASE_MS } from "../db/worker.js";
import { toTimestamp } from "../deps.js";
import { LpError, notFound } from "../errors.js";
import { recordEvent } from "../events/event-sink.js";
import type { Generator } from "../generation/generation-input.js";
import { storePageImages } from "../generation/page-images.js";
import { isUuid } from "../ids.js";
import { toPagination } from "../lists/keyset-page.js";
import type { Page } from "../lists/list-query.js";
import type { MediaStore } from "../media/media-store.js";
import type { ProductsService } from "../products/products-service.js";
import { applyMergePatch } from "../render/merge-patch.js";
import type { RenderablePage } from "../render/renderable-page.js";
import { toGlobalTheme, type SeoConfig } from "../render/theme.js";
import type { BackgroundDeps, ServiceDeps } from "../service-deps.js";
import { toRenderable } from "../deployments/deployment-view.js";
import type { BuilderLinks } from "./builder-links.js";
import { createGenerationWork } from "./generation-work.js";
import { createPageRepository, type StoredJob } from "./page-repository.js";
import { toJobAnswer, toPageSummary, toPageView, type PageRecord } from "./page-view.js";
import type { PageCreateInput, PageListQuery, PageUpdateInput } from "./schemas.js";

/** Dependencies of the pages service. */
export interface PagesDeps extends ServiceDeps, BackgroundDeps {
  media: MediaStore;
  generator: Generator;
  products: ProductsService;
  accounts: AccountsService;
  /** Signs the `builder_url` of pages and jobs. */
  builderLinks: BuilderLinks;
  /**
   * Called in the transaction that deletes a page, before the page goes (its deployments, site and files
   * go with it by the foreign keys): the deployment in flight is told it was cancelled.
   */
  onPageDeleting?: (tx: Tx, page: PageRecord) => Promise<void>;
}

/** Pages and their generation jobs, on the relational store (`page-repository.ts`). */
export function createPagesService(deps: PagesDeps) {
  const { database, clock, ids } = deps;
  const repo = createPageRepository(database.dialect, deps.unreadableRows);
  // Signed at every answer: a stored link would expire while its record lives on.
  const builderUrl = (id: string) => deps.builderLinks.url(id);

  async function readPage(accountId: string, id: string): Promise<PageRecord | null> {
    return isUuid(id) ? repo.readPage(database.db, id, { accountId }) : null;
  }

  async function requirePage(accountId: string, id: string): Promise<PageRecord> {
    const page = await readPage(accountId, id);
    if (!page) throw notFound("page", id);
    return page;
  }

  const work = createGenerationWork({
    ...deps,
    repo,
    builderUrl,
    currencyOf: async (accountId) => (await deps.accounts.get(accountId))?.currency ?? "USD",
  });

  /**
   * Inserts a job in `tx` if the page quota has room: counted (pages, and jobs still processing) under the
   * account's row lock, so concurrent creations into one account never pass the quota together.
   */
  async function insertJobWithinQuota(tx: Tx, job: StoredJob, dueAt?: string): Promise<void> {
    const quota = await repo.lockPageQuota(tx, job.account_id);
    if (quota === null) throw notFound("account", job.account_id);
    const used = await repo.countQuotaUse(tx, job.account_id);
    if (used >= quota) throw quotaExceeded(quota, used);
    await repo.insertJob(tx, job, { dueAt });
  }

  return {
    /** A page by id alone, for the builder preview (its URL names no account). */
    async findPage(id: string): Promise<PageRecord | null> {
      return isUuid(id) ? repo.readPage(database.db, id) : null;
    },
    readPage,
    requirePage,
    /** Checks builder links ({@link BuilderLinks.verify}). */
    verifyBuilderLink: deps.builderLinks.verify,

    /** The page ready to render as it stands: images redrawn in its current theme and currency. */
    async renderable(page: PageRecord): Promise<RenderablePage> {
      return { ...toRenderable(page), ...(await storePageImages(deps.media, page)) };
    },
    builderUrl,

    /**
     * Starts a generation job from a checked body (`pageCreateSchema`'s output); answers at once with its
     * id. The job is a row of `page_jobs`, due at once, written with the page quota counted under the
     * account's row lock; the worker takes it once the transaction commits.
     */
    async create(accountId: string, input: PageCreateInput, simulate: string | null, change?: ChangeMark): Promise<{ job_id: string }> {
      if (input.product_id !== undefined && !(await deps.products.read(accountId, input.product_id))) {
        throw notFound("product", input.product_id);
      }
      // A full quota refuses before anything is made (the count in the transaction below is the one that holds).
      const quota = (await deps.accounts.require(accountId)).page_quota;
      const used = await repo.countQuotaUse(database.db, accountId);
      if (used >= quota) throw quotaExceeded(quota, used);
      const now = clock.now();
      const at = toTimestamp(now);
      const job: StoredJob = {
        job_id: ids.uuid(),
        account_id: accountId,
        status: "processing",
        step: "analyzing_product",
        step_detail: "Queued",
        page_id: null,
        warnings: [],
        error: null,
        created_at: at,
        updated_at: at,
        completed_at: null,
        step_times: {},
        request: {
          product_id: input.product_id ?? "",
          language: input.options?.language ?? "en",
          marketing_angle: input.options?.marketing_angle ?? null,
          design: { ...input.design },
          checkout_fields: input.checkout_fields ?? null,
          simulate,
        },
      };
      if (!input.product) {
        await database.transaction(async (tx) => {
          await insertJobWithinQuota(tx, job);
          await change?.(tx);
        });
      } else {
        // The inline product and the job's quota slot are one change: the job is written in the product's
        // transaction, before the product's id is known, and due only after a grace period; it is then given
        // the product and made due at once. A process that stops in between leaves a job without a product,
        // which its worker fails once it is due.
        const dueAt = toTimestamp(new Date(now.getTime() + DEFAULT_LEASE_MS));
        const product = await deps.products.create(accountId, input.product, [], async (tx) => {
          await insertJobWithinQuota(tx, job, dueAt);
          await change?.(tx);
        });
        await repo.completeRequest(database.db, job.job_id, { ...job.request, product_id: product.id }, at);
      }
      work.worker.wake();
      return { job_id: job.job_id };
    },

    async getJob(accountId: string, jobId: string) {
      const job = isUuid(jobId) ? await repo.readJob(database.db, jobId, { accountId }) : null;
      if (!job) throw notFound("job", jobId);
      return toJobAnswer(job, builderUrl);
    },

    /**
     * An account's jobs, newest first, with the time each step began (the dashboard's timelines; the API
     * has no list of jobs); those that made page `pageId` when it is given.
     */
    async listJobs(accountId: string, options: { pageId?: string; limit: number }) {
      const jobs = await repo.listJobs(database.db, accountId, options);
      return jobs.map((job) => ({ ...toJobAnswer(job, builderUrl), product_id: job.request.product_id, simulate: job.request.simulate, step_times: job.step_times }));
    },

    async get(accountId: string, id: string) {
      return toPageView(await requirePage(accountId, id), builderUrl(id));
    },

    async list(accountId: string, q: PageListQuery): Promise<Page<ReturnType<typeof toPageSummary>>> {
      const filters = { status: q.status, product_id: q.product_id, q: q.q, created_after: q.created_after, created_before: q.created_before };
      const binding = { sort: q.sort, filters };
      const after = q.cursor ? deps.cursors.decode(q.cursor, binding) : undefined;
      const page = await repo.listPages(database.db, accountId, { ...filters, sort: q.sort, after, limit: q.per_page });
      return { data: page.items, pagination: toPagination(page, deps.cursors, binding) };
    },

    /** Applies a checked merge patch (`pageUpdateSchema`'s output), with `page.updated`, in one transaction. */
    async update(accountId: string, id: string, patch: PageUpdateInput, change?: ChangeMark) {
      if (!isUuid(id)) throw notFound("page", id);
      return database.transaction(async (tx) => {
        // Held until the transaction ends (PostgreSQL): concurrent patches of one page apply one after the other.
        const page = await repo.readPage(tx, id, { accountId, forUpdate: true });
        if (!page) throw notFound("page", id);
        const changes: Parameters<typeof repo.updatePage>[3] = { updated_at: toTimestamp(clock.now()) };
        if (patch.global_theme) changes.global_theme = toGlobalTheme(applyMergePatch(page.global_theme, patch.global_theme), page.global_theme.currency);
        if (patch.seo_config) changes.seo_config = applyMergePatch(page.seo_config, patch.seo_config) as SeoConfig;
        const next = (await repo.updatePage(tx, accountId, id, changes))!;
        const view = toPageView(next, builderUrl(id));
        await recordEvent(deps.events, tx, { type: "page.updated", account_id: accountId, data: view });
        await change?.(tx);
        return view;
      });
    },

    /**
     * Records a successful deployment on the page in `tx` (the deployment's own transaction): its address,
     * `published`, and `page.updated`. False when the page is gone.
     */
    async markDeployed(tx: Tx, accountId: string, id: string, url: string): Promise<boolean> {
      const page = await repo.updatePage(tx, accountId, id, { status: "published", deployed_url: url, updated_at: toTimestamp(clock.now()) });
      if (!page) return false;
      await recordEvent(deps.events, tx, { type: "page.updated", account_id: accountId, data: toPageView(page, builderUrl(id)) });
      return true;
    },

    /**
     * Deletes the page, with `page.deleted`, in one transaction: its deployments, live site and files go with
     * it (foreign keys that cascade). Its images go once that has committed.
     */
    async remove(accountId: string, id: string, change?: ChangeMark): Promise<void> {
      if (!isUuid(id)) throw notFound("page", id);
      await database.transaction(async (tx) => {
        const page = await repo.readPage(tx, id, { accountId, forUpdate: true });
        if (!page) throw notFound("page", id);
        await deps.onPageDeleting?.(tx, page);
        await repo.deletePage(tx, accountId, id);
        await recordEvent(deps.events, tx, { type: "page.deleted", account_id: accountId, data: toPageSummary(page) });
        await change?.(tx);
      });
      await deps.media.removePrefix(`pages/${id}`);
    },

    /** The generation worker (its pending runs and idle, for the core). */
    work: work.worker,
    /** Settles what a stopped process left (see `interrupted-work.ts`), then starts taking due jobs. */
    startWork: (options?: { left?: boolean }) => work.start(options),
  };
}

/** The 403 of a full page quota. */
function quotaExceeded(limit: number, used: number): LpError {
  return new LpError("quota_exceeded", `The account's page quota of ${limit} is reached; delete a page first.`, { quota: "pages", limit, used });
}

export type PagesService = ReturnType<typeof createPagesService>;
