import type { DeployErrorCode } from "@lp/contract";
import { z } from "zod";
import { toTimestamp } from "../deps.js";
import { LpError, notFound } from "../errors.js";
import { isAccountId, isUuid } from "../ids.js";
import { perPageSchema } from "../lists/list-query.js";
import { paginate } from "../lists/paginate.js";
import type { PageRecord } from "../pages/page-view.js";
import type { PagesService } from "../pages/pages-service.js";
import { removePrefix } from "../storage/remove-prefix.js";
import { stageEvent } from "../events/event-sink.js";
import type { BackgroundDeps, ServiceDeps } from "../service-deps.js";
import { runDeployment } from "./deploy-run.js";
import { createDeploymentStore } from "./deployment-store.js";
import { siteKeys } from "./site-keys.js";
import { toDeploymentEntry, toDeploymentView, type DeploymentRecord } from "./deployment-view.js";
import { skipUnreadable } from "../storage/record-check.js";
import type { ChangeMark } from "../db/change-mark.js";

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

/** Deployments of pages: one in flight per page, history, cancellation and crash recovery. */
export function createDeploymentsService(deps: DeploymentsDeps) {
  const { storage, clock } = deps;
  const indexOf = (a: string, pageId: string) => deps.indexes.get(`acct:${a}:deployments:${pageId}`, toDeploymentEntry);
  const store = createDeploymentStore({ ...deps, indexOf });
  const read = store.read;
  const runDeps = { ...deps, store };

  async function fail(d: DeploymentRecord, code: DeployErrorCode, message: string) {
    await store.settle({ ...d, status: "failed", error_code: code, error_message: message, updated_at: toTimestamp(clock.now()) });
  }

  // A job names its deployment; whichever process runs it reads the record. A resumed run (its first worker
  // died, or it threw) settles the deployment as a restart would.
  deps.queue.handle("deployment", async ({ account_id: accountId, page_id: pageId, deployment_id: id }, { resumed, interruption, signal }) => {
    if (!isAccountId(accountId) || !isUuid(pageId) || !isUuid(id)) throw new Error(`deployment job with malformed ids: ${accountId} ${pageId} ${id}`);
    const ref = { account_id: accountId, page_id: pageId, id };
    if (resumed) return void (await store.recoverOne(ref, interruption));
    const d = await read(ref);
    if (d?.status === "deploying") await runDeployment(runDeps, d, signal);
  });

  return {
    /**
     * Starts a deployment of the page as it stands, unless one is in flight (409 naming it in
     * `details.active_deployment_id`).
     */
    async start(accountId: string, pageId: string, simulate: string | null, _change?: ChangeMark): Promise<{ deployment_id: string; deployed_url: null; deployed_at: null }> {
      await deps.pages.requirePage(accountId, pageId);
      // The lock makes check-and-claim atomic: concurrent starts see the first one's claim.
      return deps.lock.withLock(`deploy:${accountId}:${pageId}`, async (lease) => {
        const active = await store.activeClaim(accountId, pageId);
        // A claim whose deployment is missing or settled was left by a crash between two writes: it blocks nothing.
        const holder = active ? await read({ account_id: accountId, page_id: pageId, id: active.deployment_id }) : null;
        if (active && holder?.status === "deploying") {
          throw new LpError("deployment_in_progress", "A deployment of this page is already in flight; poll it before starting another.", {
            active_deployment_id: active.deployment_id,
          });
        }
        const at = toTimestamp(clock.now());
        const d: DeploymentRecord = {
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
        };
        // The claim, the record and the event's outbox entry commit together.
        const event = await stageEvent(deps.events, { type: "deployment.started", account_id: accountId, data: toDeploymentView(d) });
        await store.open(d, lease, event.ops);
        event.publish();
        await deps.queue.add("deployment", d.id, { account_id: accountId, page_id: pageId, deployment_id: d.id }).catch(async (error: unknown) => {
          // Not queued (a shared queue's Redis is unreachable): the request fails, and the page is not left claimed.
          await fail(d, "worker_terminated", "The deployment could not be queued.").catch(() => {});
          throw error;
        });
        return { deployment_id: d.id, deployed_url: null, deployed_at: null };
      });
    },

    async get(accountId: string, pageId: string, id: string) {
      await deps.pages.requirePage(accountId, pageId);
      const d = isUuid(id) ? await read({ account_id: accountId, page_id: pageId, id }) : null;
      if (!d) throw notFound("deployment", id);
      return toDeploymentView(d);
    },

    async list(accountId: string, pageId: string, q: DeploymentListQuery) {
      await deps.pages.requirePage(accountId, pageId);
      return paginate({
        index: await deps.indexes.listing(`acct:${accountId}:deployments:${pageId}`, toDeploymentEntry),
        codec: deps.cursors,
        sort: "-created_at",
        cursor: q.cursor,
        perPage: q.per_page,
        filters: { page_id: pageId, status: q.status },
        filter: (e) => !q.status || e.status === q.status,
        load: async (entries) => {
          const found = await Promise.all(entries.map((e) => skipUnreadable(read({ account_id: accountId, page_id: pageId, id: e.id }))));
          return found.filter((d): d is DeploymentRecord => d !== null).map(toDeploymentView);
        },
      });
    },

    /** Cancels what is in flight and removes the site and the history of a page being deleted. */
    async onPageDeleted(page: PageRecord) {
      const active = await store.activeClaim(page.account_id, page.id);
      if (active) {
        const d = await read({ account_id: page.account_id, page_id: page.id, id: active.deployment_id });
        if (d?.status === "deploying") await fail(d, "cancelled", "The page was deleted during the deployment.");
      }
      await store.dropClaim(page.account_id, page.id);
      const pointer = await storage.getItem<{ page_id: string }>(siteKeys.pointer(page.account_id, page.slug));
      if (pointer?.page_id === page.id) await storage.removeItem(siteKeys.pointer(page.account_id, page.slug));
      await removePrefix(storage, siteKeys.allFiles(page.account_id, page.id));
      await removePrefix(storage, `acct:${page.account_id}:deployments:${page.id}`);
      deps.indexes.drop(`acct:${page.account_id}:deployments:${page.id}`);
    },

    /** Settles what a previous process left in flight (see {@link createDeploymentStore}). */
    recover: () => store.recover(deps.queue.shared ? (ref, since) => deps.queue.abandoned("deployment", ref.id, since) : undefined),
  };
}

export type DeploymentsService = ReturnType<typeof createDeploymentsService>;
