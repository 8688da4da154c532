import { stageEvent } from "../events/event-sink.js";
import type { AccountsService } from "../accounts/accounts-service.js";
import { toTimestamp } from "../deps.js";
import { LpError, notFound } from "../errors.js";
import type { Generator } from "../generation/generation-input.js";
import { storePageImages } from "../generation/page-images.js";
import type { RenderablePage } from "../render/renderable-page.js";
import { isUuid } from "../ids.js";
import { paginate, withinBounds } from "../lists/paginate.js";
import type { MediaStore } from "../media/media-store.js";
import type { ProductsService } from "../products/products-service.js";
import type { LockLease } from "../ports/lock.js";
import { applyMergePatch } from "../render/merge-patch.js";
import { toGlobalTheme, type SeoConfig } from "../render/theme.js";
import type { BackgroundDeps, ServiceDeps } from "../service-deps.js";
import { toRenderable } from "../deployments/deployment-view.js";
import { createGenerationWork } from "./generation-work.js";
import { pageJournalKeys, type JobMarker } from "./page-journal.js";
import { toJobEntry, toJobView, toPageEntry, toPageSummary, toPageView, type JobRecord, type PageRecord } from "./page-view.js";
import type { PageCreateInput, PageListQuery, PageUpdateInput } from "./schemas.js";
import { toSlug, toUniqueSlug } from "./slug.js";
import { createPageStore, pageKeys } from "./page-store.js";
import type { BuilderLinks } from "./builder-links.js";
import { skipUnreadable } from "../storage/record-check.js";
import type { ChangeMark } from "../db/change-mark.js";

/** Dependencies of the pages service. */
export interface PagesDeps extends ServiceDeps, BackgroundDeps {
  media: MediaStore;
  generator: Generator;
  products: ProductsService;
  accounts: AccountsService;
  /** Signs the `builder_url` of pages and jobs. */
  builderLinks: BuilderLinks;
  /** Called when a page goes away (deployments and sites clean up after it). */
  onPageDeleted?: (page: PageRecord) => Promise<void>;
}

/** Pages and their generation jobs. */
export function createPagesService(deps: PagesDeps) {
  const { storage, clock, ids } = deps;
  const store = createPageStore(deps);
  const pageKey = pageKeys.page;
  const jobKey = pageKeys.job;
  const inflightKey = pageJournalKeys.job;
  const { pagesIndex, jobsIndex } = store;
  // Signed at every answer: a stored link would expire while its record lives on.
  const builderUrl = (id: string) => deps.builderLinks.url(id);

  const saveJob = store.saveJob;

  async function readPage(a: string, id: string): Promise<PageRecord | null> {
    return isUuid(id) ? store.readPage(a, id) : null;
  }

  async function requirePage(a: string, id: string): Promise<PageRecord> {
    const page = await readPage(a, id);
    if (!page) throw notFound("page", id);
    return page;
  }

  /** The one place a page is written: the record and its event's outbox entry in one batch, the index, then the event handed on. */
  async function commitPage(page: PageRecord, type: "page.created" | "page.updated", lease?: LockLease) {
    const event = await stageEvent(deps.events, { type, account_id: page.account_id, data: toPageView(page, builderUrl(page.id)) });
    await store.savePage(page, lease?.fence, event.ops);
    event.publish();
  }

  async function createPage(job: JobRecord, draft: Omit<PageRecord, "slug">, title: string): Promise<PageRecord> {
    return deps.lock.withLock(`slugs:${job.account_id}`, async (lease) => {
      const index = await pagesIndex(job.account_id);
      const taken = new Set([...index.values()].map((e) => e.slug));
      const page: PageRecord = { ...draft, slug: toUniqueSlug(toSlug(title, draft.language), (s) => taken.has(s), draft.language) };
      await store.createPage(page, job, builderUrl(page.id), lease);
      await deps.events.emit({ type: "page.created", account_id: page.account_id, data: toPageView(page, builderUrl(page.id)) });
      await store.closeJournal(job);
      return page;
    });
  }

  /** Notes in the job's journal entry which page it is about to write (see {@link replayPageJournal}). */
  const reservePage = store.reservePage;

  /** Every step of a page's deletion, each safe to repeat; the journal entry goes last. */
  async function finishDeletion(page: PageRecord) {
    const { account_id: accountId, id } = page;
    await deps.onPageDeleted?.(page);
    await store.removePage(page);
    await deps.media.removePrefix(`pages/${id}`);
    await deps.events.emit({ type: "page.deleted", account_id: accountId, data: toPageSummary(page) });
    await store.endDeletion(page);
  }

  const work = createGenerationWork({
    queue: deps.queue,
    run: {
      ...deps,
      saveJob,
      reservePage,
      createPage,
      builderUrl,
      currencyOf: async (a) => (await deps.accounts.get(a))?.currency ?? "USD",
    },
    journal: {
      storage,
      clock,
      events: deps.events,
      readJob: (a, jobId) => storage.getItem<JobRecord>(jobKey(a, jobId)),
      saveJob,
      readPage,
      announcePage: (page) => deps.events.emit({ type: "page.created", account_id: page.account_id, data: toPageView(page, builderUrl(page.id)) }),
      builderUrl,
      removeMedia: (pageId) => deps.media.removePrefix(`pages/${pageId}`),
      finishDeletion,
    },
  });

  return {
    /** A page by id alone, for the builder preview (its URL names no account). */
    async findPage(id: string): Promise<PageRecord | null> {
      if (!isUuid(id)) return null;
      const owner = await store.readOwner(id);
      return owner ? readPage(owner.account_id, id) : null;
    },
    readPage,
    requirePage,
    /** Checks builder links ({@link BuilderLinks.verify}). */
    verifyBuilderLink: deps.builderLinks.verify,

    /** The page ready to render as it stands: images redrawn in its current theme and currency. */
    async renderable(page: PageRecord): Promise<RenderablePage> {
      return { ...toRenderable(page), ...(await storePageImages(deps.media, page)) };
    },
    commitPage,
    builderUrl,

    /** Starts a generation job from a checked body (`pageCreateSchema`'s output); answers at once with its id. */
    async create(accountId: string, input: PageCreateInput, simulate: string | null, _change?: ChangeMark): Promise<{ job_id: string }> {
      if (input.product_id !== undefined && !(await deps.products.read(accountId, input.product_id))) {
        throw notFound("product", input.product_id);
      }
      return deps.lock.withLock(`quota:${accountId}`, async (lease) => {
        const account = await deps.accounts.require(accountId);
        // Both indexes first, then the count: on a shared store each get() reads the feed, and a job that
        // completed between two reads would be counted as neither a page nor a processing job.
        const [pagesNow, jobsNow] = [await pagesIndex(accountId), await jobsIndex(accountId)];
        const used = pagesNow.size + [...jobsNow.values()].filter((j) => j.status === "processing").length;
        if (used >= account.page_quota) {
          throw new LpError("quota_exceeded", `The account's page quota of ${account.page_quota} is reached; delete a page first.`, {
            quota: "pages",
            limit: account.page_quota,
            used,
          });
        }
        const productId = input.product
          ? (await deps.products.create(accountId, input.product)).id
          : input.product_id!;
        const at = toTimestamp(clock.now());
        const job: JobRecord = {
          job_id: ids.uuid(),
          account_id: accountId,
          status: "processing",
          step: "analyzing_product",
          step_detail: "Queued",
          page_id: null,
          builder_url: null,
          warnings: [],
          error: null,
          created_at: at,
          updated_at: at,
          completed_at: null,
          request: {
            product_id: productId,
            language: input.options?.language ?? "en",
            marketing_angle: input.options?.marketing_angle ?? null,
            design: { ...input.design },
            checkout_fields: input.checkout_fields ?? null,
            simulate,
          },
        };
        // The job takes a quota slot: written only while the quota lock is still ours.
        await lease.assertHeld();
        await storage.setItem(inflightKey(accountId, job.job_id), { at });
        await saveJob(job);
        await work.schedule(job);
        return { job_id: job.job_id };
      });
    },

    async getJob(accountId: string, jobId: string) {
      const job = isUuid(jobId) ? await store.readJob(accountId, jobId) : null;
      if (!job) throw notFound("job", jobId);
      const view = toJobView(job);
      return view.page_id ? { ...view, builder_url: builderUrl(view.page_id) } : view;
    },

    async get(accountId: string, id: string) {
      return toPageView(await requirePage(accountId, id), builderUrl(id));
    },

    async list(accountId: string, q: PageListQuery) {
      const needle = q.q?.toLowerCase();
      return paginate({
        index: await store.pagesListing(accountId),
        codec: deps.cursors,
        sort: q.sort,
        cursor: q.cursor,
        perPage: q.per_page,
        filters: { status: q.status, product_id: q.product_id, q: q.q, created_after: q.created_after, created_before: q.created_before },
        filter: (e) =>
          (!q.status || e.status === q.status) &&
          (!q.product_id || e.product_id === q.product_id) &&
          (!needle || e.text.includes(needle)) &&
          withinBounds(e.created_at, q.created_after, q.created_before),
        load: async (entries) => {
          const pages = await Promise.all(entries.map((e) => skipUnreadable(readPage(accountId, e.id))));
          return pages.filter((p): p is PageRecord => p !== null).map(toPageSummary);
        },
      });
    },

    /** Applies a checked merge patch (`pageUpdateSchema`'s output). */
    async update(accountId: string, id: string, patch: PageUpdateInput, _change?: ChangeMark) {
      if (!isUuid(id)) throw notFound("page", id);
      return deps.lock.withLock(pageKey(accountId, id), async (lease) => {
        const page = await requirePage(accountId, id);
        const next: PageRecord = { ...page, updated_at: toTimestamp(clock.now()) };
        if (patch.global_theme) next.global_theme = toGlobalTheme(applyMergePatch(page.global_theme, patch.global_theme), page.global_theme.currency);
        if (patch.seo_config) next.seo_config = applyMergePatch(page.seo_config, patch.seo_config) as SeoConfig;
        await commitPage(next, "page.updated", lease);
        return toPageView(next, builderUrl(id));
      });
    },

    /** Records a successful deployment on the page: its address, and `published`. */
    async markDeployed(accountId: string, id: string, url: string) {
      await deps.lock.withLock(pageKey(accountId, id), async (lease) => {
        const page = await readPage(accountId, id);
        if (page) await commitPage({ ...page, status: "published", deployed_url: url, updated_at: toTimestamp(clock.now()) }, "page.updated", lease);
      });
    },

    /** Deletes the page with its components, route, deployments, media and live site. */
    async remove(accountId: string, id: string, _change?: ChangeMark): Promise<void> {
      if (!isUuid(id)) throw notFound("page", id);
      await deps.lock.withLock(pageKey(accountId, id), async () => {
        const page = await requirePage(accountId, id);
        // Journaled: a deletion cut short by a kill is finished at the next start.
        await store.beginDeletion(page);
        await finishDeletion(page);
      });
    },

    /** Replays the journal a previous process left: deletions are finished, jobs completed or failed. */
    recover: () => work.recover(),
  };
}

export type PagesService = ReturnType<typeof createPagesService>;
