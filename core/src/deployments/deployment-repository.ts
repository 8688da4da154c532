import { sql, type Selectable } from "kysely";
import { DEPLOY_ERROR_CODES, DEPLOY_STEPS, deploymentSchema } from "@lp/contract";
import { toJson } from "../db/column-types.js";
import type { Dialect, Queries, Tx } from "../db/database.js";
import type { QueueTable } from "../db/queue.js";
import type { DeploymentTables } from "../db/tables/deployments.js";
import { createRowReader, readReadable, type ColumnRule, type JsonShape, type RowReader, type UnreadableRows } from "../db/unreadable-rows.js";
import { selectKeysetPage, type KeysetPage, type KeysetQuery } from "../lists/keyset-page.js";
import { RENDERABLE_PAGE_SHAPE, STEP_TIMES_SHAPE } from "../pages/page-row-rules.js";
import type { RenderablePage } from "../render/renderable-page.js";
import type { DeploymentRecord, SitePointer, SiteSnapshot } from "./deployment-view.js";
import type { CheckoutRecord } from "./sites-service.js";

type DeploymentRow = Selectable<DeploymentTables["deployments"]>;

/** A deployment as stored: when each step began is always known. */
export type StoredDeployment = DeploymentRecord & { step_times: NonNullable<DeploymentRecord["step_times"]> };

/** The queue of deployment work (`db/queue.ts`): a deployment is due from its start until it is settled. */
export const deploymentQueue: QueueTable = { table: "deployments", key: "id" };

/** What {@link DeploymentRepository.insertDeployment} did: refused while the page has one in flight, named here. */
export type DeploymentInsertResult = { inserted: true } | { inserted: false; active_deployment_id: string };

/** What a deployment's update may change; `updated_at` always. */
export type DeploymentChanges = Partial<
  Pick<StoredDeployment, "status" | "deploy_step" | "error_code" | "error_message" | "deployed_url" | "deployed_at" | "step_times">
> & { updated_at: string };

/** A deployment made live: the address it now serves and the files it serves there. */
export interface SiteActivation {
  account_id: string;
  slug: string;
  page_id: string;
  deployment_id: string;
  activated_at: string;
  url: string;
  html: string;
  /** The page as it was rendered: what the checkout form is checked against. */
  page: RenderablePage;
}

/** What a live address serves, with the files of its deployment. */
export interface LiveSite extends SiteSnapshot {
  pointer: Required<SitePointer>;
}

/** What a deployment's row must hold (SQLite keeps whatever a hand edit puts in a column). */
const DEPLOYMENT_RULES: Record<string, ColumnRule> = {
  page_id: "text",
  account_id: "text",
  status: deploymentSchema.shape.status.options,
  deploy_step: [...DEPLOY_STEPS, null],
  error_code: [...DEPLOY_ERROR_CODES, null],
  error_message: "text?",
  deployed_url: "text?",
  deployed_at: "text?",
  simulate: "text?",
  created_at: "text",
  updated_at: "text",
};
const DEPLOYMENT_DOCUMENTS = { step_times: STEP_TIMES_SHAPE };
/** What a deployment's files must hold. */
const SITE_FILE_RULES: Record<string, ColumnRule> = { html: "text" };
const SITE_FILE_DOCUMENTS = { page: RENDERABLE_PAGE_SHAPE };
/** What a live address's row must hold. */
const SITE_RULES: Record<string, ColumnRule> = { page_id: "text", deployment_id: "text", activated_at: "text", url: "text" };
/** What a checkout post's row must hold: the submitted values, text by field key. */
const CHECKOUT_RULES: Record<string, ColumnRule> = { page_id: "text", deployment_id: "text", created_at: "text" };
const CHECKOUT_VALUES: JsonShape = { what: "the submitted fields", fields: {}, is: (value) => Object.values(value as object).every((v) => typeof v === "string") };

// A start that finds the page busy reads which deployment holds it; should that one settle in between, the
// insert is tried again. Each round ends one way or the other unless deployments start and settle meanwhile.
const INSERT_ATTEMPTS = 4;

/**
 * Deployments, live sites, their files and checkout posts on the relational schema. Every method takes the
 * queries to run on: the database, or the transaction the change is one of (a deployment's success with
 * its site and its page's address). Row locks are taken on PostgreSQL only. A damaged row is read as
 * `UnreadableRowError` naming it (named once through `unreadable`); lists leave it out.
 */
export function createDeploymentRepository(dialect: Dialect, unreadable?: UnreadableRows) {
  const pg = dialect === "postgres";
  const deploymentRows = createRowReader("deployment", "deployments", unreadable);
  // A deployment's files are its own: a damaged one names the deployment.
  const fileRows = createRowReader("deployment", "site_files", unreadable);
  const siteRows = createRowReader("site", "sites", unreadable);
  const checkoutRows = createRowReader("checkout", "checkouts", unreadable);
  const toDeployment = (row: DeploymentRow) => toStoredDeployment(deploymentRows, row);
  const toSnapshot = (row: { deployment_id: string; html: string; page: string }): SiteSnapshot => {
    const { page } = fileRows.read(row.deployment_id, row, SITE_FILE_RULES, SITE_FILE_DOCUMENTS);
    return { deployment_id: row.deployment_id, html: row.html, page: page as RenderablePage };
  };
  const toPointer = <P extends Required<SitePointer>>(accountId: string, slug: string, row: P): P => {
    siteRows.check(slug, row, SITE_RULES, `${accountId}/${slug}`);
    return row;
  };

  async function activeDeployment(q: Queries, accountId: string, pageId: string): Promise<string | null> {
    const row = await q
      .selectFrom("deployments")
      .select("id")
      .where("account_id", "=", accountId)
      .where("page_id", "=", pageId)
      // A literal, as in the partial index `deployments_in_flight`, so the lookup is that index's (a bound value would not match it on SQLite).
      .where("status", "=", sql.lit("deploying"))
      .executeTakeFirst();
    return row?.id ?? null;
  }

  return {
    /**
     * A new deployment, due at once on {@link deploymentQueue}, unless one of the page's is in flight: the
     * partial unique index `deployments_in_flight` refuses it (ON CONFLICT, which on PostgreSQL waits for
     * a concurrent start to commit or roll back), and the one in flight is named (the API's 409).
     */
    async insertDeployment(q: Queries, d: StoredDeployment): Promise<DeploymentInsertResult> {
      for (let attempt = 0; attempt < INSERT_ATTEMPTS; attempt++) {
        const row = await q
          .insertInto("deployments")
          .values({ ...toDeploymentRow(d), due_at: d.created_at, lease_owner: null, lease_expires_at: null })
          // The predicate is the index's, as a literal: PostgreSQL matches a partial index by its text.
          .onConflict((oc) => oc.column("page_id").where(sql.ref("status"), "=", sql.lit("deploying")).doNothing())
          .returning("id")
          .executeTakeFirst();
        if (row) return { inserted: true };
        const active = await activeDeployment(q, d.account_id, d.page_id);
        if (active) return { inserted: false, active_deployment_id: active };
      }
      throw new Error(`deployment ${d.id} of page ${d.page_id}: the page's deployments kept changing`);
    },

    /** The id of the page's deployment in flight, or null. */
    activeDeployment,

    /** A deployment by id; within one account and page when given (a worker knows the claimed key alone). */
    async readDeployment(q: Queries, id: string, options: { accountId?: string; pageId?: string; forUpdate?: boolean } = {}): Promise<StoredDeployment | null> {
      let query = q.selectFrom("deployments").selectAll().where("id", "=", id);
      if (options.accountId !== undefined) query = query.where("account_id", "=", options.accountId);
      if (options.pageId !== undefined) query = query.where("page_id", "=", options.pageId);
      if (options.forUpdate && pg) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toDeployment(row) : null;
    },

    /** A page's deployments, newest first (ties by id), filtered by status, the `limit` after `after`. */
    async listDeployments(
      q: Queries,
      accountId: string,
      pageId: string,
      options: KeysetQuery & { status?: DeploymentRecord["status"] },
    ): Promise<KeysetPage<StoredDeployment>> {
      let query = q.selectFrom("deployments").selectAll().where("page_id", "=", pageId).where("account_id", "=", accountId);
      if (options.status !== undefined) query = query.where("status", "=", options.status);
      const page = await selectKeysetPage(query, { key: "created_at", tiebreak: "id", descending: true, position: (row) => ({ value: row.created_at, id: row.id }) }, options);
      return { ...page, items: readReadable(page.items, toDeployment) };
    },

    /**
     * A deployment's step or outcome. With `heldBy`, only while that owner holds its lease: a worker whose
     * lease lapsed and was taken over writes nothing. The deployment as it now is, or null when nothing was written.
     */
    async updateDeployment(q: Queries, id: string, changes: DeploymentChanges, options: { heldBy?: string } = {}): Promise<StoredDeployment | null> {
      let query = q
        .updateTable("deployments")
        .set({
          updated_at: changes.updated_at,
          ...(changes.status !== undefined && { status: changes.status }),
          ...(changes.deploy_step !== undefined && { deploy_step: changes.deploy_step }),
          ...(changes.error_code !== undefined && { error_code: changes.error_code }),
          ...(changes.error_message !== undefined && { error_message: changes.error_message }),
          ...(changes.deployed_url !== undefined && { deployed_url: changes.deployed_url }),
          ...(changes.deployed_at !== undefined && { deployed_at: changes.deployed_at }),
          ...(changes.step_times !== undefined && { step_times: toJson(changes.step_times) }),
        })
        .where("id", "=", id);
      if (options.heldBy !== undefined) query = query.where("lease_owner", "=", options.heldBy);
      const row = await query.returningAll().executeTakeFirst();
      return row ? toDeployment(row) : null;
    },

    /** Writes a deployment's files, once: files already written for it are kept as they are (they never change). */
    async storeSiteFiles(q: Queries, files: { deployment_id: string; html: string; page: RenderablePage; created_at: string }): Promise<void> {
      await q
        .insertInto("site_files")
        .values({ deployment_id: files.deployment_id, html: files.html, page: toJson(files.page), created_at: files.created_at })
        .onConflict((oc) => oc.column("deployment_id").doNothing())
        .execute();
    },

    /**
     * Makes a deployment live: writes its files (unless {@link storeSiteFiles} did) and points the address
     * at it, replacing what the address served. Both in `tx`, the transaction that records the deployment's
     * success, so a reader sees the old site or the new one, never half.
     */
    async activateSite(tx: Tx, site: SiteActivation): Promise<void> {
      await tx
        .insertInto("site_files")
        .values({ deployment_id: site.deployment_id, html: site.html, page: toJson(site.page), created_at: site.activated_at })
        .onConflict((oc) => oc.column("deployment_id").doNothing())
        .execute();
      const pointer = { page_id: site.page_id, deployment_id: site.deployment_id, activated_at: site.activated_at, url: site.url };
      await tx
        .insertInto("sites")
        .values({ account_id: site.account_id, slug: site.slug, ...pointer })
        .onConflict((oc) => oc.columns(["account_id", "slug"]).doUpdateSet(pointer))
        .execute();
    },

    /** What the address serves, with its files, in one read; null when nothing is live there. */
    async readSite(q: Queries, accountId: string, slug: string): Promise<LiveSite | null> {
      const row = await q
        .selectFrom("sites")
        .innerJoin("site_files", "site_files.deployment_id", "sites.deployment_id")
        .select(["sites.page_id", "sites.deployment_id", "sites.activated_at", "sites.url", "site_files.html", "site_files.page"])
        .where("sites.account_id", "=", accountId)
        .where("sites.slug", "=", slug)
        .executeTakeFirst();
      if (!row) return null;
      const pointer = toPointer(accountId, slug, { page_id: row.page_id, deployment_id: row.deployment_id, activated_at: row.activated_at, url: row.url });
      return { pointer, ...toSnapshot(row) };
    },

    /** Which deployment the address serves, without its files (a reader keeping files by deployment reads this alone). */
    async readSitePointer(q: Queries, accountId: string, slug: string): Promise<Required<SitePointer> | null> {
      const row = await q
        .selectFrom("sites")
        .select(["page_id", "deployment_id", "activated_at", "url"])
        .where("account_id", "=", accountId)
        .where("slug", "=", slug)
        .executeTakeFirst();
      return row ? toPointer(accountId, slug, row) : null;
    },

    /** A deployment's files, which never change once written. */
    async readSiteFiles(q: Queries, deploymentId: string): Promise<SiteSnapshot | null> {
      const row = await q.selectFrom("site_files").select(["deployment_id", "html", "page"]).where("deployment_id", "=", deploymentId).executeTakeFirst();
      return row ? toSnapshot(row) : null;
    },

    /** A checkout post. */
    async insertCheckout(q: Queries, checkout: CheckoutRecord): Promise<void> {
      await q
        .insertInto("checkouts")
        .values({
          id: checkout.id,
          account_id: checkout.account_id,
          page_id: checkout.page_id,
          deployment_id: checkout.deployment_id,
          values: toJson(checkout.values),
          created_at: checkout.created_at,
        })
        .execute();
    },

    /** An account's checkout posts, newest first (ties by id), those of one page when given, the `limit` after `after`. */
    async listCheckouts(q: Queries, accountId: string, options: KeysetQuery & { pageId?: string }): Promise<KeysetPage<CheckoutRecord>> {
      let query = q.selectFrom("checkouts").selectAll().where("account_id", "=", accountId);
      if (options.pageId !== undefined) query = query.where("page_id", "=", options.pageId);
      const page = await selectKeysetPage(query, { key: "created_at", tiebreak: "id", descending: true, position: (row) => ({ value: row.created_at, id: row.id }) }, options);
      return { ...page, items: readReadable(page.items, (row): CheckoutRecord => ({ ...row, values: checkoutRows.read(row.id, row, CHECKOUT_RULES, { values: CHECKOUT_VALUES }).values as CheckoutRecord["values"] })) };
    },
  };
}

/** The deployment repository's methods. */
export type DeploymentRepository = ReturnType<typeof createDeploymentRepository>;

/** A deployment's row, without its queue columns (its due time and claim). */
export function toDeploymentRow(d: StoredDeployment): Omit<DeploymentRow, "due_at" | "lease_owner" | "lease_expires_at"> {
  return {
    id: d.id,
    page_id: d.page_id,
    account_id: d.account_id,
    status: d.status,
    deploy_step: d.deploy_step,
    error_code: d.error_code,
    error_message: d.error_message,
    deployed_url: d.deployed_url,
    deployed_at: d.deployed_at,
    simulate: d.simulate,
    step_times: toJson(d.step_times),
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

function toStoredDeployment(rows: RowReader, row: DeploymentRow): StoredDeployment {
  const { step_times } = rows.read(row.id, row, DEPLOYMENT_RULES, DEPLOYMENT_DOCUMENTS);
  return {
    id: row.id,
    page_id: row.page_id,
    account_id: row.account_id,
    status: row.status,
    deploy_step: row.deploy_step,
    error_code: row.error_code,
    error_message: row.error_message,
    deployed_url: row.deployed_url,
    deployed_at: row.deployed_at,
    simulate: row.simulate,
    step_times: step_times as StoredDeployment["step_times"],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
