import type { DeployErrorCode } from "@lp/contract";
import type { Storage } from "unstorage";
import { toTimestamp, type Clock } from "../deps.js";
import type { PagesService } from "../pages/pages-service.js";
import { StorageUnavailableError } from "../errors.js";
import { HoldLost } from "../ports/queue.js";
import { renderPage } from "../render/render-page.js";
import type { DeploymentStore } from "./deployment-store.js";
import type { DeploymentRecord, DeployStep, SiteSnapshot } from "./deployment-view.js";
import { siteKeys, siteUrl } from "./site-keys.js";
import { StorageFaultError } from "../storage/storage-faults.js";

/** What a deployment run needs. */
export interface DeployRunDeps {
  clock: Clock;
  pages: PagesService;
  sleep: (ms: number) => Promise<void>;
  stepDelayMs: () => number;
  publicUrl: () => string;
  store: DeploymentStore;
  /** Where the rendered files go (immutable once written). */
  storage: Storage;
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
 * Runs a deployment: renders the page as it stands into immutable files, stores them, then points the
 * site at them in one write. A deployment cancelled meanwhile (page deleted), or taken away from this process
 * by a shared queue (`signal`), stops at the next step.
 */
export async function runDeployment(deps: DeployRunDeps, initial: DeploymentRecord, signal?: AbortSignal): Promise<void> {
  let d = initial;
  const step = async (name: DeployStep) => {
    if (signal?.aborted) throw new HoldLost();
    const current = await deps.store.read(d);
    if (!current || current.status !== "deploying") throw new DeployFailure("cancelled", "The deployment was cancelled.");
    const at = toTimestamp(deps.clock.now());
    // When each step began, for the dashboard's per-step durations (the API's view leaves it out).
    d = { ...current, deploy_step: name, updated_at: at, step_times: { ...current.step_times, [name]: at } };
    await deps.store.step(d);
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
    // The pointer write is the moment of success: a kill after it is rolled forward at the next start.
    await deps.store.settle(await deps.store.activate(d, page.slug));
  } catch (error) {
    // Another process settles the deployment now: nothing more is written from here.
    if (error instanceof HoldLost) return;
    // The shared store is away: nothing can be recorded now; the queue runs it again, resumed, once it is back.
    // Likewise a storage that refuses writes (full, read-only): nothing can be recorded until it takes them again.
    if (error instanceof StorageUnavailableError || error instanceof StorageFaultError) throw error;
    const failure = error instanceof DeployFailure ? error : new DeployFailure("render_failed", "The deployment failed unexpectedly.");
    if (!(error instanceof DeployFailure)) console.error(`[lp] deployment ${d.id} failed:`, error);
    const current = await deps.store.read(d);
    // Gone with its page, or already settled by whoever cancelled it: nothing left to record.
    if (!current || current.status !== "deploying") return;
    d = { ...current, status: "failed", error_code: failure.code, error_message: failure.message, updated_at: toTimestamp(deps.clock.now()) };
    await deps.store.settle(d);
  }
}
