import type { PageSummary } from "@lp/contract";
import { sql, type Selectable } from "kysely";
import { toJson } from "../db/column-types.js";
import type { Dialect, Queries, Tx } from "../db/database.js";
import type { QueueTable } from "../db/queue.js";
import type { PageTables } from "../db/tables/pages.js";
import { createRowReader, readReadable, type RowReader, type UnreadableRows } from "../db/unreadable-rows.js";
import { selectKeysetPage, type KeysetPage, type KeysetQuery } from "../lists/keyset-page.js";
import { toSort } from "../lists/list-query.js";
import { trimEndChars } from "../trim.js";
import { JOB_DOCUMENTS, JOB_RULES, LISTED_PRODUCT_SHAPE, PAGE_DOCUMENTS, PAGE_LISTED_RULES, PAGE_RULES } from "./page-row-rules.js";
import type { JobRecord, PageRecord } from "./page-view.js";
import type { PageListQuery } from "./schemas.js";
import { toSlug, toUniqueSlug } from "./slug.js";

type PageRow = Selectable<PageTables["pages"]>;
type JobRow = Selectable<PageTables["page_jobs"]>;

/** A job as stored: its `builder_url` is signed at every answer, never kept. */
export type StoredJob = Omit<JobRecord, "builder_url"> & { step_times: NonNullable<JobRecord["step_times"]> };

/** The queue of generation work (`db/queue.ts`): a job is due from its creation until it is settled. */
export const pageJobQueue: QueueTable = { table: "page_jobs", key: "job_id" };

/** What {@link PageRepository.insertPage} did: a page whose slug the account already has is not written. */
export type PageInsertResult = { inserted: true } | { inserted: false; conflict: "slug" };

/** What a page's update may change; `updated_at` always. */
export type PageChanges = Partial<Pick<PageRecord, "global_theme" | "seo_config" | "content" | "status" | "deployed_url">> & { updated_at: string };

/** What a job's update may change; `updated_at` always. */
export type JobChanges = Partial<Pick<StoredJob, "status" | "step" | "step_detail" | "page_id" | "warnings" | "error" | "step_times" | "completed_at">> & {
  updated_at: string;
};

/** One page of GET /pages, as its query (`pageListSchema`) gives it, from the position after `after`. */
export interface PageListOptions extends Pick<PageListQuery, "sort" | "status" | "product_id" | "q" | "created_after" | "created_before">, KeysetQuery {}

// Numbered variants of a slug are found by the range of text that starts with its stem; `~` sorts after
// every character a slug can have ([a-z0-9-], compared byte by byte on both engines).
const AFTER_SLUG_CHARACTERS = "~";
// toUniqueSlug's stem keeps at most 60 - 4 characters of the base before `-{lang}` (a language of 3 letters).
const SHORTEST_STEM = 56;
// Each round sees the slugs committed before it; one loses only to a page inserted at the same moment.
const SLUG_ATTEMPTS = 8;

/**
 * Pages and generation jobs on the relational schema. Every method takes the queries to run on: the
 * database, or the transaction a change is one of (a completed job and its page; a deletion and its
 * event), so the caller reads the whole change in one place. Row locks (`forUpdate`) are taken on
 * PostgreSQL only; SQLite runs one transaction at a time. A damaged row (`page-row-rules.ts`) is read as
 * `UnreadableRowError` naming it, named once through `unreadable`; lists leave it out.
 */
export function createPageRepository(dialect: Dialect, unreadable?: UnreadableRows) {
  const pg = dialect === "postgres";
  const pageRows = createRowReader("page", "pages", unreadable);
  const jobRows = createRowReader("job", "page_jobs", unreadable);
  const toPage = (row: PageRow) => toPageRecord(pageRows, row);
  const toJob = (row: JobRow) => toStoredJob(jobRows, row);

  async function insertPage(q: Queries, page: PageRecord): Promise<PageInsertResult> {
    // ON CONFLICT rather than a caught error: on PostgreSQL a refused statement would end the transaction.
    const row = await q
      .insertInto("pages")
      .values(toPageRow(page))
      .onConflict((oc) => oc.columns(["account_id", "slug"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    return row ? { inserted: true } : { inserted: false, conflict: "slug" };
  }

  /** The account's slugs that start as `base` does, a superset of every slug `toUniqueSlug` may try for it. */
  async function slugsLike(q: Queries, accountId: string, base: string): Promise<Set<string>> {
    const stem = trimEndChars(base.slice(0, SHORTEST_STEM), "-");
    const rows = await q
      .selectFrom("pages")
      .select("slug")
      .where("account_id", "=", accountId)
      .where("slug", ">=", stem)
      .where("slug", "<", stem + AFTER_SLUG_CHARACTERS)
      .execute();
    return new Set(rows.map((r) => r.slug));
  }

  return {
    insertPage,

    /**
     * Writes a generated page under the first free slug by today's rules (`toSlug` of the product title in
     * the page's language, then `toUniqueSlug`: `-{lang}`, then `-2`, `-3`...). The unique (account, slug)
     * index decides: a slug another transaction took meanwhile is refused, and the next round reads again.
     */
    async insertPageWithFreeSlug(q: Queries, draft: Omit<PageRecord, "slug">, title: string): Promise<PageRecord> {
      const base = toSlug(title, draft.language);
      for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
        const taken = await slugsLike(q, draft.account_id, base);
        const page: PageRecord = { ...draft, slug: toUniqueSlug(base, (s) => taken.has(s), draft.language) };
        if ((await insertPage(q, page)).inserted) return page;
      }
      throw new Error(`no free slug for page ${draft.id} after ${SLUG_ATTEMPTS} attempts (base ${base})`);
    },

    /** A page by id; within one account when `accountId` is given (the builder preview's URL names none). */
    async readPage(q: Queries, id: string, options: { accountId?: string; forUpdate?: boolean } = {}): Promise<PageRecord | null> {
      let query = q.selectFrom("pages").selectAll().where("id", "=", id);
      if (options.accountId !== undefined) query = query.where("account_id", "=", options.accountId);
      if (options.forUpdate && pg) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toPage(row) : null;
    },

    /** The page a job wrote, if it wrote one: a job taken over after a kill completes with it. */
    async readPageByJob(q: Queries, jobId: string): Promise<PageRecord | null> {
      const row = await q.selectFrom("pages").selectAll().where("job_id", "=", jobId).executeTakeFirst();
      return row ? toPage(row) : null;
    },

    /** Changes a page's theme, SEO, content or deployment state; the page as it now is, or null when there is none. */
    async updatePage(q: Queries, accountId: string, id: string, changes: PageChanges): Promise<PageRecord | null> {
      const row = await q
        .updateTable("pages")
        .set({
          updated_at: changes.updated_at,
          ...(changes.global_theme !== undefined && { global_theme: toJson(changes.global_theme) }),
          ...(changes.seo_config !== undefined && { seo_config: toJson(changes.seo_config) }),
          ...(changes.content !== undefined && { content: toJson(changes.content) }),
          ...(changes.status !== undefined && { status: changes.status }),
          ...(changes.deployed_url !== undefined && { deployed_url: changes.deployed_url }),
        })
        .where("account_id", "=", accountId)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
      return row ? toPage(row) : null;
    },

    /**
     * Deletes a page; its deployments, its site and the site's files go with it (foreign keys that
     * cascade). Answers the page as it was, or null when there was none.
     */
    async deletePage(q: Queries, accountId: string, id: string): Promise<PageRecord | null> {
      const row = await q.deleteFrom("pages").where("account_id", "=", accountId).where("id", "=", id).returningAll().executeTakeFirst();
      return row ? toPage(row) : null;
    },

    /**
     * One page of GET /pages: filtered, in the sort's order (ties by id, in the same direction; slugs are
     * unique, so the slug order needs none), the `limit` pages after `after`.
     */
    async listPages(q: Queries, accountId: string, options: PageListOptions): Promise<KeysetPage<PageSummary>> {
      const { field, descending } = toSort(options.sort) as { field: "created_at" | "updated_at" | "slug"; descending: boolean };
      let query = q
        .selectFrom("pages")
        .select(["id", "slug", "status", "product", "deployed_url", "created_at", "updated_at"])
        .where("account_id", "=", accountId);
      if (options.status !== undefined) query = query.where("status", "=", options.status);
      if (options.product_id !== undefined) query = query.where("product_id", "=", options.product_id);
      if (options.q) {
        const needle = options.q.toLowerCase();
        query = query.where((eb) => eb(eb.fn<number>(pg ? "strpos" : "instr", ["search_text", eb.val(needle)]), ">", 0));
      }
      if (options.created_after !== undefined) query = query.where("created_at", ">", toInstant(options.created_after));
      if (options.created_before !== undefined) query = query.where("created_at", "<", toInstant(options.created_before));
      const page = await selectKeysetPage(
        query,
        {
          key: field,
          tiebreak: field === "slug" ? null : "id",
          descending,
          // The page goes on from its last row whose sort key is text: a damaged one is left out.
          position: (row) => (typeof row[field] === "string" ? { value: row[field], id: row.id } : undefined),
        },
        options,
      );
      // A damaged row is left out (and named once); a damage in a column the list does not show leaves it in.
      const items = readReadable(page.items, (row): PageSummary => {
        const product = pageRows.read(row.id, row, PAGE_LISTED_RULES, { product: LISTED_PRODUCT_SHAPE }).product as PageSummary["product"];
        return {
          id: row.id,
          slug: row.slug,
          status: row.status,
          product: { id: product.id, title: product.title, price: product.price },
          deployed_url: row.deployed_url,
          created_at: row.created_at,
          updated_at: row.updated_at,
        };
      });
      return { ...page, items };
    },

    /**
     * What the page quota counts: the account's pages and its jobs still processing (a job's page is written
     * with its completion, so none is counted twice). On PostgreSQL the caller holds the account's row lock
     * while it counts and inserts the job, so two creations cannot both take the last slot.
     */
    async countQuotaUse(q: Queries, accountId: string): Promise<number> {
      const row = await q
        .selectNoFrom((eb) => [
          eb.selectFrom("pages").select((e) => e.fn.countAll<number>().as("n")).where("account_id", "=", accountId).as("pages"),
          eb
            .selectFrom("page_jobs")
            .select((e) => e.fn.countAll<number>().as("n"))
            .where("account_id", "=", accountId)
            // A literal, as in the partial index `page_jobs_processing`: a bound value would not match it on SQLite.
            .where("status", "=", sql.lit("processing"))
            .as("jobs"),
        ])
        .executeTakeFirstOrThrow();
      return Number(row.pages) + Number(row.jobs);
    },

    /**
     * The account's page quota, with its row locked until `tx` ends on PostgreSQL (NO KEY: rows that only
     * reference the account, its jobs and pages, are not held up), so the count and the insert that follow
     * are the only ones against it; null for an unknown account.
     */
    async lockPageQuota(tx: Tx, accountId: string): Promise<number | null> {
      let query = tx.selectFrom("accounts").select("page_quota").where("account_id", "=", accountId);
      if (pg) query = query.forNoKeyUpdate();
      const row = await query.executeTakeFirst();
      return row ? row.page_quota : null;
    },

    /** A new job on {@link pageJobQueue}, due at once (its creation time) unless `dueAt` says later. */
    async insertJob(q: Queries, job: StoredJob, options: { dueAt?: string } = {}): Promise<void> {
      await q
        .insertInto("page_jobs")
        .values({ ...toJobRow(job), due_at: options.dueAt ?? job.created_at, lease_owner: null, lease_expires_at: null })
        .execute();
    },

    /**
     * Replaces what a job still processing and not yet claimed was asked (its request), and when it is due:
     * a job inserted before all it needs was known is completed here. False when the job was settled or taken.
     */
    async completeRequest(q: Queries, jobId: string, request: StoredJob["request"], dueAt: string): Promise<boolean> {
      const result = await q
        .updateTable("page_jobs")
        .set({ request: toJson(request), due_at: dueAt })
        .where("job_id", "=", jobId)
        .where("status", "=", "processing")
        .where("lease_owner", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** A job by id; within one account when `accountId` is given (a worker knows the claimed key alone). */
    async readJob(q: Queries, jobId: string, options: { accountId?: string; forUpdate?: boolean } = {}): Promise<StoredJob | null> {
      let query = q.selectFrom("page_jobs").selectAll().where("job_id", "=", jobId);
      if (options.accountId !== undefined) query = query.where("account_id", "=", options.accountId);
      if (options.forUpdate && pg) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toJob(row) : null;
    },

    /**
     * A job's progress or outcome. With `heldBy`, only while that owner holds the job's lease: a worker whose
     * lease lapsed and was taken over writes nothing. The job as it now is, or null when nothing was written.
     */
    async updateJob(q: Queries, jobId: string, changes: JobChanges, options: { heldBy?: string } = {}): Promise<StoredJob | null> {
      let query = q
        .updateTable("page_jobs")
        .set({
          updated_at: changes.updated_at,
          ...(changes.status !== undefined && { status: changes.status }),
          ...(changes.step !== undefined && { step: changes.step }),
          ...(changes.step_detail !== undefined && { step_detail: changes.step_detail }),
          ...(changes.page_id !== undefined && { page_id: changes.page_id }),
          ...(changes.warnings !== undefined && { warnings: toJson(changes.warnings) }),
          ...(changes.step_times !== undefined && { step_times: toJson(changes.step_times) }),
          ...(changes.completed_at !== undefined && { completed_at: changes.completed_at }),
          ...(changes.error !== undefined && { error_code: changes.error?.code ?? null, error_message: changes.error?.message ?? null }),
        })
        .where("job_id", "=", jobId);
      if (options.heldBy !== undefined) query = query.where("lease_owner", "=", options.heldBy);
      const row = await query.returningAll().executeTakeFirst();
      return row ? toJob(row) : null;
    },

    /** An account's jobs, newest first, those of one page when `pageId` is given (the dashboard's timelines). */
    async listJobs(q: Queries, accountId: string, options: { pageId?: string; limit: number }): Promise<StoredJob[]> {
      let query = q.selectFrom("page_jobs").selectAll().where("account_id", "=", accountId);
      if (options.pageId !== undefined) query = query.where("page_id", "=", options.pageId);
      const rows = await query.orderBy("created_at", "desc").orderBy("job_id", "desc").limit(options.limit).execute();
      return readReadable(rows, toJob);
    },
  };
}

/** The page repository's methods. */
export type PageRepository = ReturnType<typeof createPageRepository>;

/** A bound of `created_after` / `created_before` (a date or a date-time with a zone) as stored times are written. */
function toInstant(bound: string): string {
  return new Date(Date.parse(bound)).toISOString();
}

function toPageRow(page: PageRecord): PageRow {
  return {
    id: page.id,
    account_id: page.account_id,
    product_id: page.product.id,
    slug: page.slug,
    status: page.status,
    language: page.language,
    hero_image_url: page.hero_image_url,
    deployed_url: page.deployed_url,
    job_id: page.job_id,
    search_text: `${page.slug}\n${page.product.title}`.toLowerCase(),
    product: toJson(page.product),
    content: toJson(page.content),
    global_theme: toJson(page.global_theme),
    seo_config: toJson(page.seo_config),
    checkout_fields: toJson(page.checkout_fields),
    created_at: page.created_at,
    updated_at: page.updated_at,
  };
}

function toPageRecord(rows: RowReader, row: PageRow): PageRecord {
  const documents = rows.read(row.id, row, PAGE_RULES, PAGE_DOCUMENTS);
  return {
    id: row.id,
    account_id: row.account_id,
    slug: row.slug,
    status: row.status,
    language: row.language,
    product: documents.product as PageRecord["product"],
    content: documents.content as PageRecord["content"],
    global_theme: documents.global_theme as PageRecord["global_theme"],
    seo_config: documents.seo_config as PageRecord["seo_config"],
    checkout_fields: documents.checkout_fields as PageRecord["checkout_fields"],
    hero_image_url: row.hero_image_url,
    deployed_url: row.deployed_url,
    job_id: row.job_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toJobRow(job: StoredJob): Omit<JobRow, "due_at" | "lease_owner" | "lease_expires_at"> {
  return {
    job_id: job.job_id,
    account_id: job.account_id,
    status: job.status,
    step: job.step,
    step_detail: job.step_detail,
    page_id: job.page_id,
    request: toJson(job.request),
    warnings: toJson(job.warnings),
    step_times: toJson(job.step_times),
    error_code: job.error?.code ?? null,
    error_message: job.error?.message ?? null,
    created_at: job.created_at,
    updated_at: job.updated_at,
    completed_at: job.completed_at,
  };
}

function toStoredJob(rows: RowReader, row: JobRow): StoredJob {
  const documents = rows.read(row.job_id, row, JOB_RULES, JOB_DOCUMENTS);
  return {
    job_id: row.job_id,
    account_id: row.account_id,
    status: row.status,
    step: row.step,
    step_detail: row.step_detail,
    page_id: row.page_id,
    warnings: documents.warnings as StoredJob["warnings"],
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? "" },
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
    request: documents.request as StoredJob["request"],
    step_times: documents.step_times as StoredJob["step_times"],
  };
}
