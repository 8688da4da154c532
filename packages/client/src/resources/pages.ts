import type { RequestOptions, Transport } from "../transport.js";
import type { ListPage } from "../types/common.js";
import type { Job, Page, PageCreateAccepted, PageCreateInput, PageListQuery, PageSummary, PageUpdateInput } from "../types/pages.js";
import type { WriteOptions } from "./products.js";

type ReadOptions = Pick<RequestOptions, "signal" | "headers">;

/** `pages`: landing pages of the account (scopes `pages:read`, `pages:write`). */
export function createPagesApi(t: Transport) {
  const path = (id?: string) => t.accountPath(id === undefined ? "/pages" : `/pages/${encodeURIComponent(id)}`);
  return {
    /**
     * Starts generating a page; answers at once with the job to poll (see `waitForJob`). Pass
     * `headers: { "lp-simulate": "slow" }` to exercise progress locally.
     */
    async create(input: PageCreateInput, options: WriteOptions = {}): Promise<PageCreateAccepted> {
      return (await t.send<{ data: PageCreateAccepted }>("POST", path(), "account", { ...options, body: input })).data.data;
    },
    /** One page of pages (summaries). */
    async list(query: PageListQuery = {}, options: ReadOptions = {}): Promise<ListPage<PageSummary>> {
      return (await t.send<ListPage<PageSummary>>("GET", path(), "account", { ...options, query: { ...query } })).data;
    },
    /** A page with its product, theme and SEO settings. */
    async get(id: string, options: ReadOptions = {}): Promise<Page> {
      return (await t.send<{ data: Page }>("GET", path(id), "account", options)).data.data;
    },
    /** Merge-patches `global_theme` and `seo_config`. */
    async update(id: string, input: PageUpdateInput, options: WriteOptions = {}): Promise<Page> {
      return (await t.send<{ data: Page }>("PATCH", path(id), "account", { ...options, body: input })).data.data;
    },
    /** Deletes the page with its deployments and live site. */
    async delete(id: string, options: ReadOptions = {}): Promise<void> {
      await t.send("DELETE", path(id), "account", options);
    },
  };
}

/** `jobs`: page generation jobs. */
export function createJobsApi(t: Transport) {
  return {
    /** The job as it stands: `processing`, `completed` (with `page_id`) or `failed` (with `error`). */
    async get(jobId: string, options: ReadOptions = {}): Promise<Job> {
      const path = t.accountPath(`/pages/jobs/${encodeURIComponent(jobId)}`);
      return (await t.send<{ data: Job }>("GET", path, "account", options)).data.data;
    },
  };
}

/** The `pages` namespace. */
export type PagesApi = ReturnType<typeof createPagesApi>;
/** The `jobs` namespace. */
export type JobsApi = ReturnType<typeof createJobsApi>;
