import { z } from "zod";
import type { ChangeMark } from "../db/change-mark.js";
import type { Tx } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { isUnreadableRow } from "../db/unreadable-rows.js";
import { createWorker, type Worker } from "../db/worker.js";
import { toTimestamp } from "../deps.js";
import { LpError, notFound } from "../errors.js";
import { recordEvent } from "../events/event-sink.js";
import { isUuid } from "../ids.js";
import { toPagination } from "../lists/keyset-page.js";
import { perPageSchema, type Page } from "../lists/list-query.js";
import { isLeaseLost, isStarted, takeOverAtStart, toInterruptedMessage, type Takeover } from "../pages/interrupted-work.js";
import type { PageRecord } from "../pages/page-view.js";
import type { PagesService } from "../pages/pages-service.js";
import type { BackgroundDeps, ServiceDeps } from "../service-deps.js";
import { failDeployment, failDeploymentIn, runDeployment, type DeployRunDeps } from "./deploy-run.js";
import { createDeploymentRepository, deploymentQueue, type StoredDeployment } from "./deployment-repository.js";
import { toDeploymentView } from "./deployment-view.js";

/** Query of `GET /pages/{id}/deployments`. */
export const deploymentListSchema = z.object({
  status: z.enum(["deploying", "succeeded", "failed"]).optional(),
  cursor: z.string().min(1).max(1024).optional(),
  per_page: perPageSchema,
});

/** A deployments query as `deploymentListSchema` outputs it. */
export type DeploymentListQuery = z.output<typeof deploymentListSchema>;

/** Dependencies of the deployments service. */
export interface DeploymentsDeps extends ServiceDeps, BackgroundDeps {
  pages: PagesService;
}

/**
 * Deployments of pages on the relational store (`deployment-repository.ts`): one in flight per page (the
 * partial unique index `deployments_in_flight`), history, and the deployment's steps as rows of
 * `deployments` run by a worker. A deployment whose run began and stopped is settled when it is taken
 * over: failed with `worker_terminated` at its step, with `deployment.failed`.
 */
export function createDeploymentsService(deps: DeploymentsDeps) {
  const { database, clock, owner } = deps;
  const repo = createDeploymentRepository(database.dialect, deps.unreadableRows);
  const runDeps: DeployRunDeps = { ...deps, repo };
  const interrupted = (d: StoredDeployment) => toInterruptedMessage("deployment", d.deploy_step);

  const worker: Worker = createWorker({
    database,
    table: deploymentQueue,
    owner,
    clock,
    scheduler: deps.scheduler,
    concurrency: deps.concurrency,
    leaseMs: deps.leaseMs,
    async run(id, lease) {
      const d = await repo.readDeployment(database.db, id);
      if (d?.status === "deploying") {
        if (isStarted(d)) await failDeployment(runDeps, d, "worker_terminated", interrupted(d), { heldBy: owner });
        else await runDeployment(runDeps, d, lease);
      }
      return { due_at: null };
    },
    onError(id, error) {
      if (!isLeaseLost(error)) deps.onError(`deployment ${id ?? "claim"}`, error);
    },
  });

  /** A deployment left claimed by a stopped process, settled in `tx` (see `takeOverAtStart`). */
  async function settleLeft(tx: Tx, id: string): Promise<Takeover> {
    const d = await repo.readDeployment(tx, id);
    if (d?.status !== "deploying") return { settled: true };
    if (!isStarted(d)) return { settled: false };
    await failDeploymentIn(tx, runDeps, d, "worker_terminated", interrupted(d));
    return { settled: true };
  }

  return {
    /**
     * Starts a deployment of the page as it stands, unless one is in flight (409 naming it in
     * `details.active_deployment_id`): the deployment, due at once, and `deployment.started` in one transaction.
     */
    async start(accountId: string, pageId: string, simulate: string | null, change?: ChangeMark): Promise<{ deployment_id: string; deployed_url: null; deployed_at: null }> {
      await deps.pages.requirePage(accountId, pageId);
      const at = toTimestamp(clock.now());
      const d: StoredDeployment = {
        id: deps.ids.uuid(),
        page_id: pageId,
        account_id: accountId,
        status: "deploying",
        deploy_step: "rendering",
        error_code: null,
        error_message: null,
        deployed_url: null,
        deployed_at: null,
        created_at: at,
        updated_at: at,
        simulate,
        step_times: {},
      };
      try {
        await database.transaction(async (tx) => {
          const inserted = await repo.insertDeployment(tx, d);
          if (!inserted.inserted) {
            throw new LpError("deployment_in_progress", "A deployment of this page is already in flight; poll it before starting another.", {
              active_deployment_id: inserted.active_deployment_id,
            });
          }
          await recordEvent(deps.events, tx, { type: "deployment.started", account_id: accountId, data: toDeploymentView(d) });
          await change?.(tx);
        });
      } catch (error) {
        // The page went between the check above and the insert.
        if (isForeignKeyViolation(error)) throw notFound("page", pageId);
        throw error;
      }
      worker.wake();
      return { deployment_id: d.id, deployed_url: null, deployed_at: null };
    },

    async get(accountId: string, pageId: string, id: string) {
      await deps.pages.requirePage(accountId, pageId);
      const d = isUuid(id) ? await repo.readDeployment(database.db, id, { accountId, pageId }) : null;
      if (!d) throw notFound("deployment", id);
      return toDeploymentView(d);
    },

    async list(accountId: string, pageId: string, q: DeploymentListQuery): Promise<Page<ReturnType<typeof toDeploymentView>>> {
      await deps.pages.requirePage(accountId, pageId);
      const binding = { sort: "-created_at", filters: { page_id: pageId, status: q.status } };
      const after = q.cursor ? deps.cursors.decode(q.cursor, binding) : undefined;
      const page = await repo.listDeployments(database.db, accountId, pageId, { status: q.status, after, limit: q.per_page });
      return {
        data: page.items.map(toDeploymentView),
        pagination: toPagination(page, deps.cursors, binding),
      };
    },

    /** A page's latest deployments, newest first, with the time each step began (the dashboard's timelines). */
    async history(accountId: string, pageId: string, limit: number) {
      const page = await repo.listDeployments(database.db, accountId, pageId, { limit });
      return page.items.map((d) => ({ ...toDeploymentView(d), simulate: d.simulate, step_times: d.step_times }));
    },

    /**
     * In the transaction deleting `page`: the deployment in flight is told cancelled (`deployment.failed`).
     * Its row, the others, the site and its files go with the page (foreign keys that cascade); its run finds
     * its row gone and stops. A damaged one goes with the page unannounced (its row cannot say what it was).
     */
    async onPageDeleting(tx: Tx, page: PageRecord): Promise<void> {
      const active = await repo.activeDeployment(tx, page.account_id, page.id);
      const d = active ? await repo.readDeployment(tx, active).catch((error: unknown) => (isUnreadableRow(error) ? null : Promise.reject(error))) : null;
      if (!d) return;
      const cancelled = { ...d, status: "failed" as const, error_code: "cancelled" as const, error_message: "The page was deleted during the deployment.", updated_at: toTimestamp(clock.now()) };
      await recordEvent(deps.events, tx, { type: "deployment.failed", account_id: page.account_id, data: toDeploymentView(cancelled) });
    },

    /** The deployment worker (its pending runs and idle, for the core). */
    work: worker,
    /**
     * Settles what a stopped process left (see `takeOverAtStart`), then starts taking due deployments; with
     * `left` false (no deployment stored) there are none yet.
     */
    async startWork(options: { left?: boolean } = {}) {
      if (options.left === false) return;
      await takeOverAtStart(database, deploymentQueue, settleLeft);
      worker.wake();
    },
  };
}

export type DeploymentsService = ReturnType<typeof createDeploymentsService>;
