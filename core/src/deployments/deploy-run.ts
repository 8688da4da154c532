import type { Storage } from "unstorage";
import { toTimestamp, type Clock } from "../deps.js";
import type { EventSink } from "../events/event-sink.js";
import type { PagesService } from "../pages/pages-service.js";
import { renderPage } from "../render/render-page.js";
import { toDeploymentView, type DeploymentRecord, type DeployStep, type SitePointer, type SiteSnapshot } from "./deployment-view.js";

/** What a deployment run needs. */
export interface DeployRunDeps {
  storage: Storage;
  clock: Clock;
  events: EventSink;
  pages: PagesService;
  sleep: (ms: number) => Promise<void>;
  stepDelayMs: () => number;
  publicUrl: () => string;
  read: (d: DeploymentRecord) => Promise<DeploymentRecord | null>;
  save: (d: DeploymentRecord) => Promise<void>;
}

class DeployFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Storage keys of sites: the pointer per address, and the immutable files per deployment. */
export const siteKeys = {
  pointer: (accountId: string, slug: string) => `sites:${accountId}:${slug}`,
  files: (accountId: string, pageId: string, deploymentId: string) => `sitefiles:${accountId}:${pageId}:${deploymentId}`,
  allFiles: (accountId: string, pageId: string) => `sitefiles:${accountId}:${pageId}`,
};

/** Public address of a page's site. */
export const siteUrl = (publicUrl: string, accountId: string, slug: string) => `${publicUrl}/sites/${accountId}/${slug}/`;

/**
 * Runs a deployment: renders the page as it stands into immutable files, stores them, then points the
 * site at them in one write. A deployment cancelled meanwhile (page deleted) stops at the next step.
 */
export async function runDeployment(deps: DeployRunDeps, initial: DeploymentRecord): Promise<void> {
  let d = initial;
  const step = async (name: DeployStep) => {
    const current = await deps.read(d);
    if (!current || current.status !== "deploying") throw new DeployFailure("cancelled", "The deployment was cancelled.");
    d = { ...current, deploy_step: name, updated_at: toTimestamp(deps.clock.now()) };
    await deps.save(d);
    const pause = d.simulate === "slow" ? 1000 : deps.stepDelayMs();
    if (pause > 0) await deps.sleep(pause);
  };
  try {
    await step("rendering");
    if (d.simulate === "deployment_failed") throw new DeployFailure("render_failed", "Rendering failed (simulated with Lp-Simulate: deployment_failed).");
    const page = await deps.pages.readPage(d.account_id, d.page_id);
    if (!page) throw new DeployFailure("cancelled", "The page was deleted during the deployment.");
    const url = siteUrl(deps.publicUrl(), d.account_id, page.slug);
    const renderable = await deps.pages.renderable(page);
    const snapshot: SiteSnapshot = {
      html: renderPage(renderable, { checkoutAction: `${url}checkout` }),
      page: renderable,
      deployment_id: d.id,
    };

    await step("uploading");
    await deps.storage.setItem(siteKeys.files(d.account_id, d.page_id, d.id), snapshot);

    await step("activating");
    const at = toTimestamp(deps.clock.now());
    const pointer: SitePointer = { page_id: page.id, deployment_id: d.id, activated_at: at };
    await deps.storage.setItem(siteKeys.pointer(d.account_id, page.slug), pointer);
    d = { ...d, status: "succeeded", deploy_step: null, deployed_url: url, deployed_at: at, updated_at: at };
    await deps.save(d);
    await deps.pages.markDeployed(d.account_id, d.page_id, url);
    await deps.events.emit({ type: "deployment.succeeded", account_id: d.account_id, data: toDeploymentView(d) });
  } catch (error) {
    const failure = error instanceof DeployFailure ? error : new DeployFailure("render_failed", "The deployment failed unexpectedly.");
    if (!(error instanceof DeployFailure)) console.error(`[lp] deployment ${d.id} failed:`, error);
    const current = await deps.read(d);
    // Gone with its page, or already settled by whoever cancelled it: nothing left to record.
    if (!current || current.status !== "deploying") return;
    d = { ...current, status: "failed", error_code: failure.code, error_message: failure.message, updated_at: toTimestamp(deps.clock.now()) };
    await deps.save(d);
    await deps.events.emit({ type: "deployment.failed", account_id: d.account_id, data: toDeploymentView(d) });
  }
}
