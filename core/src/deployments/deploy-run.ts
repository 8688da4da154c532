import type { DeployErrorCode } from "@lp/contract";
import { toTimestamp, type Clock } from "../deps.js";
import type { Database, Tx } from "../db/database.js";
import { isUnreadableRow } from "../db/unreadable-rows.js";
import { LeaseLost, type Lease } from "../db/worker.js";
import { recordEvent, type EventSink } from "../events/event-sink.js";
import type { PagesService } from "../pages/pages-service.js";
import { renderPage } from "../render/render-page.js";
import type { DeploymentChanges, DeploymentRepository, StoredDeployment } from "./deployment-repository.js";
import { toDeploymentView, type DeployStep } from "./deployment-view.js";
import { siteUrl } from "./site-url.js";

/** What a deployment run needs. */
export interface DeployRunDeps {
  database: Database;
  repo: DeploymentRepository;
  /** This process's id: a run writes to its deployment only while this owner holds its lease. */
  owner: string;
  clock: Clock;
  events: EventSink;
  pages: PagesService;
  sleep: (ms: number) => Promise<void>;
  stepDelayMs: () => number;
  publicUrl: () => string;
}

class DeployFailure extends Error {
  constructor(
    readonly code: DeployErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs a deployment: renders the page as it stands, then, in one transaction, writes its immutable files,
 * points the page's address at them, records the success on the deployment and on the page (`deployed_url`,
 * `published`) with `page.updated` and `deployment.succeeded`. Each step is recorded on the deployment's
 * row under the run's lease: once the lease is lost, or the row is gone with its page, the run throws
 * {@link LeaseLost} and writes nothing more.
 */
export async function runDeployment(deps: DeployRunDeps, initial: StoredDeployment, lease: Lease): Promise<void> {
  const { database, repo, owner } = deps;
  let d = initial;
  const step = async (name: DeployStep) => {
    lease.assertHeld();
    const at = toTimestamp(deps.clock.now());
    // When each step began, for the dashboard's per-step durations (the API's view leaves it out).
    d = await save(database.db, { deploy_step: name, updated_at: at, step_times: { ...d.step_times, [name]: at } });
    const pause = d.simulate === "slow" ? 1000 : deps.stepDelayMs();
    if (pause > 0) await deps.sleep(pause);
  };
  const save = async (q: Database["db"] | Tx, changes: DeploymentChanges) => {
    const saved = await repo.updateDeployment(q, d.id, changes, { heldBy: owner });
    // Gone with its page, or taken over by another process.
    if (!saved) throw new LeaseLost(d.id);
    return saved;
  };
  try {
    await step("rendering");
    if (d.simulate === "deployment_failed") throw new DeployFailure("render_failed", "Rendering failed (simulated with Lp-Simulate: deployment_failed).");
    const page = await deps.pages.readPage(d.account_id, d.page_id);
    if (!page) throw new LeaseLost(d.id);
    const url = siteUrl(deps.publicUrl(), d.account_id, page.slug);
    const renderable = await deps.pages.renderable(page);
    const html = renderPage(renderable, { checkoutAction: `${url}checkout` });

    await step("uploading");
    // Written once, never changed: the activation below only points the address at them.
    await deps.repo.storeSiteFiles(database.db, { deployment_id: d.id, html, page: renderable, created_at: toTimestamp(deps.clock.now()) });

    await step("activating");
    lease.assertHeld();
    await database.transaction(async (tx) => {
      const at = toTimestamp(deps.clock.now());
      // First: a deployment gone with its page stops here, before a site could name the page.
      const done = await save(tx, { status: "succeeded", deploy_step: null, deployed_url: url, deployed_at: at, updated_at: at });
      await repo.activateSite(tx, { account_id: d.account_id, slug: page.slug, page_id: d.page_id, deployment_id: d.id, activated_at: at, url, html, page: renderable });
      await deps.pages.markDeployed(tx, d.account_id, d.page_id, url);
      await recordEvent(deps.events, tx, { type: "deployment.succeeded", account_id: d.account_id, data: toDeploymentView(done) });
    });
  } catch (error) {
    if (error instanceof LeaseLost) throw error;
    // A damaged page fails the deployment naming it; the read named the row in the log once.
    const failure = error instanceof DeployFailure ? error : new DeployFailure("render_failed", isUnreadableRow(error) ? error.message : "The deployment failed unexpectedly.");
    if (!(error instanceof DeployFailure) && !isUnreadableRow(error)) console.error(`[lp] deployment ${d.id} failed:`, error);
    // When the failure cannot be recorded either (the database refuses writes), the first error goes up: the
    // lease then lapses, and whoever takes the deployment over settles it as interrupted.
    await failDeployment(deps, d, failure.code, failure.message, { heldBy: owner }).catch((writeError: unknown) => {
      throw writeError instanceof LeaseLost ? writeError : error;
    });
  }
}

/** Fails a deployment with `code` and `deployment.failed`, in one transaction (`heldBy`: only while that owner holds its lease). */
export function failDeployment(deps: Pick<DeployRunDeps, "database" | "repo" | "clock" | "events">, d: StoredDeployment, code: DeployErrorCode, message: string, options: { heldBy?: string } = {}): Promise<void> {
  return deps.database.transaction((tx) => failDeploymentIn(tx, deps, d, code, message, options));
}

/** The failure of {@link failDeployment} written in `tx`. */
export async function failDeploymentIn(
  tx: Tx,
  deps: Pick<DeployRunDeps, "repo" | "clock" | "events">,
  d: StoredDeployment,
  code: DeployErrorCode,
  message: string,
  options: { heldBy?: string } = {},
): Promise<void> {
  const failed = await deps.repo.updateDeployment(tx, d.id, { status: "failed", error_code: code, error_message: message, updated_at: toTimestamp(deps.clock.now()) }, options);
  if (!failed) throw new LeaseLost(d.id);
  await recordEvent(deps.events, tx, { type: "deployment.failed", account_id: failed.account_id, data: toDeploymentView(failed) });
}
