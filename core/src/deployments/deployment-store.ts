import type { Storage } from "unstorage";
import type { Clock } from "../deps.js";
import { toTimestamp } from "../deps.js";
import type { EventSink } from "../events/event-sink.js";
import type { CollectionIndex } from "../lists/collection-index.js";
import type { IndexRegistry } from "../lists/index-registry.js";
import type { PagesService } from "../pages/pages-service.js";
import type { LockLease } from "../ports/lock.js";
import { interruptedMessage, type Interruption } from "../ports/queue.js";
import type { BatchFence, BatchOp } from "../storage/create-storage.js";
import { siteKeys, siteUrl } from "./site-keys.js";
import { toDeploymentEntry, toDeploymentView, type DeploymentEntry, type DeploymentRecord, type SitePointer } from "./deployment-view.js";
import { skipUnreadable } from "../storage/record-check.js";

/** What the deployment aggregate writes through. */
export interface DeploymentStoreDeps {
  storage: Storage;
  batch: (ops: readonly BatchOp[], fence?: BatchFence) => Promise<void>;
  clock: Clock;
  events: EventSink;
  pages: PagesService;
  publicUrl: () => string;
  /** The history index of a page (listings). */
  indexOf: (accountId: string, pageId: string) => Promise<CollectionIndex<DeploymentEntry>>;
  indexes: IndexRegistry;
}

type Ref = Pick<DeploymentRecord, "account_id" | "page_id" | "id">;

/**
 * The one place a deployment and the records derived from it change. The deployment record is the source
 * of truth; its in-flight marker (`inflight:deployments:...`) is a journal entry that stays until every
 * derived write is done: the page's claim, the page's `deployed_url` and `published` status, and the
 * event. {@link recover} replays whatever a killed process left unfinished, so a kill between any two
 * writes converges on the same state as an uninterrupted run.
 */
export function createDeploymentStore(deps: DeploymentStoreDeps) {
  const { storage } = deps;
  const key = (d: Ref) => `acct:${d.account_id}:deployments:${d.page_id}:${d.id}`;
  const activeKey = (a: string, pageId: string) => `acct:${a}:activedeploy:${pageId}`;
  const inflightKey = (d: Ref) => `inflight:deployments:${d.account_id}:${d.page_id}:${d.id}`;
  const read = (d: Ref) => storage.getItem<DeploymentRecord>(key(d));

  async function write(d: DeploymentRecord) {
    await storage.setItem(key(d), d);
    await deps.indexes.update(`acct:${d.account_id}:deployments:${d.page_id}`, toDeploymentEntry, (index) => index.upsert(toDeploymentEntry(d)));
  }

  /** Frees the page for the next deployment and closes the journal entry, together. */
  async function release(d: Ref) {
    const active = await storage.getItem<{ deployment_id: string }>(activeKey(d.account_id, d.page_id));
    const ops: BatchOp[] = [{ key: inflightKey(d), remove: true }];
    if (active?.deployment_id === d.id) ops.unshift({ key: activeKey(d.account_id, d.page_id), remove: true });
    await deps.batch(ops);
  }

  /** The derived writes of a settled deployment, each safe to repeat. */
  async function finishSettle(d: DeploymentRecord) {
    if (d.status === "succeeded" && d.deployed_url) await deps.pages.markDeployed(d.account_id, d.page_id, d.deployed_url);
    const type = d.status === "succeeded" ? "deployment.succeeded" : "deployment.failed";
    await deps.events.emit({ type, account_id: d.account_id, data: toDeploymentView(d) });
    await release(d);
  }

  return {
    read,
    /**
     * Opens a deployment as one change: journal entry first (so recovery finds every claim), the page's claim,
     * the record. Made under the page's deploy lock: fenced, so it is refused once that lease has ended.
     */
    async open(d: DeploymentRecord, lease?: LockLease, also: readonly BatchOp[] = []) {
      await deps.batch(
        [
          { key: inflightKey(d), value: { at: d.created_at } },
          { key: activeKey(d.account_id, d.page_id), value: { deployment_id: d.id } },
          { key: key(d), value: d },
          ...also,
        ],
        lease?.fence,
      );
      await deps.indexes.update(`acct:${d.account_id}:deployments:${d.page_id}`, toDeploymentEntry, (index) => index.upsert(toDeploymentEntry(d)));
    },
    /** A step of a running deployment: the record alone. */
    step: write,
    /** Records the outcome, then the derived writes (page, event, claim); the journal entry goes last. */
    async settle(d: DeploymentRecord) {
      await write(d);
      await finishSettle(d);
    },
    /** Points the page's address at the deployment's files: from this write on, the deployment has succeeded. */
    async activate(d: DeploymentRecord, slug: string): Promise<DeploymentRecord> {
      const at = toTimestamp(deps.clock.now());
      const url = siteUrl(deps.publicUrl(), d.account_id, slug);
      const pointer: SitePointer = { page_id: d.page_id, deployment_id: d.id, activated_at: at, url };
      await storage.setItem(siteKeys.pointer(d.account_id, slug), pointer);
      return succeeded(d, url, at);
    },
    activeClaim: (a: string, pageId: string) => storage.getItem<{ deployment_id: string }>(activeKey(a, pageId)),
    dropClaim: (a: string, pageId: string) => storage.removeItem(activeKey(a, pageId)),

    /**
     * Settles what a previous process left in its journal: a deployment whose site pointer already names it
     * succeeded (the kill came after the activation); one still deploying otherwise failed with
     * `worker_terminated` at its step; one already settled gets its derived writes done again.
     */
    async recover(abandoned?: (ref: Ref, since: Date) => Promise<boolean>): Promise<number> {
      let count = 0;
      for (const k of await storage.getKeys("inflight:deployments")) {
        const [, , accountId, pageId, id] = k.split(":");
        const ref = { account_id: accountId, page_id: pageId, id };
        if (abandoned) {
          // A shared queue: only work no live process holds (its job is gone from the queue) is settled here.
          const since = (await skipUnreadable(read(ref)))?.updated_at ?? (await skipUnreadable(storage.getItem<{ at: string }>(k)))?.at;
          if (since && !(await abandoned(ref, new Date(since)))) continue;
        }
        // A damaged record is left for `lp doctor` (it is logged); the others recover.
        if (await skipUnreadable(recoverOne(ref))) count++;
      }
      return count;
    },
    recoverOne,
  };

  /**
   * Settles one deployment whose run ended without finishing it (a restart, or a shared queue's job found
   * stalled). Returns whether it was still deploying. Safe to repeat.
   */
  async function recoverOne(ref: Ref, cause: Interruption = "stopped"): Promise<boolean> {
    const { account_id: accountId, page_id: pageId } = ref;
    const d = await read(ref);
    if (!d) {
      // Killed after the claim but before the record.
      await release(ref);
      return false;
    }
    if (d.status !== "deploying") {
      await finishSettle(d);
      return false;
    }
    const page = await deps.pages.readPage(accountId, pageId);
    const pointer = page ? await storage.getItem<SitePointer>(siteKeys.pointer(accountId, page.slug)) : null;
    const now = toTimestamp(deps.clock.now());
    const outcome =
      page && pointer?.deployment_id === d.id
        ? // Recovery runs before the server listens: the public URL of this start may not be known yet.
          succeeded(d, pointer.url ?? siteUrl(deps.publicUrl(), accountId, page.slug), pointer.activated_at)
        : ({
            ...d,
            status: "failed",
            error_code: "worker_terminated",
            error_message: interruptedMessage("deployment", d.deploy_step, cause),
            updated_at: now,
          } satisfies DeploymentRecord);
    await write(outcome);
    await finishSettle(outcome);
    return true;
  }
}

function succeeded(d: DeploymentRecord, url: string, at: string): DeploymentRecord {
  return { ...d, status: "succeeded", deploy_step: null, deployed_url: url, deployed_at: at, updated_at: at };
}

export type DeploymentStore = ReturnType<typeof createDeploymentStore>;
