import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCore, createManualClock, createMediaBlobs, createStores, ensureDevCredentials, openDatabase, toMediaBlobsPlace, type Core } from "../index.js";

/**
 * A process that dies leaves its jobs `processing` and its deployments `deploying` on disk. Here the
 * first core's background work is parked on a sleep that never ends (as if the process froze), its
 * stores are dropped, and a second core opens the same folder, as `lp serve` does after a crash.
 */
describe("recovery after a crash", () => {
  const dirs: string[] = [];
  const running: Core[] = [];
  afterEach(async () => {
    for (const core of running.splice(0)) await stop(core);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A clean stop: the core, then its stores (their log checkpointed; nothing writes into the folder after). */
  async function stop(core: Core): Promise<void> {
    running.splice(running.indexOf(core), 1);
    await core.close();
    await release(core);
  }

  /** Closes what a core was opened on: its stores, its database and its media. */
  async function release(core: Core): Promise<void> {
    await core.stores.dispose();
    await core.database.close();
    await opened.get(core)?.dispose();
  }
  const opened = new Map<Core, ReturnType<typeof createMediaBlobs>>();

  /**
   * What a kill leaves of a frozen core: its timers stopped without waiting for the parked run, and its stores'
   * log written out, as the next start would replay it. Nothing of it writes into the folder any more.
   */
  async function kill(core: Core): Promise<void> {
    running.splice(running.indexOf(core), 1);
    await core.drain(0, { persistIndexes: false });
    await release(core);
  }

  /** Opens a core; with `frozen`, background work stops forever at its first pause and `parked` resolves. */
  let parked: Promise<void> = Promise.resolve();
  async function open(dir: string, frozen: boolean): Promise<Core> {
    const clock = createManualClock("2026-05-01T00:00:00.000Z");
    let arrived!: () => void;
    parked = new Promise<void>((resolve) => (arrived = resolve));
    const target = { kind: "sqlite", file: join(dir, "tables.db") } as const;
    const database = await openDatabase(target);
    const media = createMediaBlobs(toMediaBlobsPlace(target, database, { clock }));
    const core = await createCore({
      stores: createStores("sqlite", dir),
      database,
      media,
      clock,
      publicUrl: () => "http://lp.test",
      sleep: frozen
        ? () => {
            arrived();
            return new Promise<void>(() => {});
          }
        : async () => {},
    });
    await ensureDevCredentials(core.database, clock, core.ids);
    opened.set(core, media);
    running.push(core);
    return core;
  }

  it("fails jobs left processing with worker_terminated at the step they were in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-recover-"));
    dirs.push(dir);
    const first = await open(dir, true);
    first.delays.generationStepMs = 1000;
    const product = await first.products.create("acct_dev", { title: "Lamp", price: 10, product_type: "physical" });
    const { job_id } = await first.pages.create("acct_dev", { product_id: product.id }, null);
    await parked;
    expect((await first.pages.getJob("acct_dev", job_id)).status).toBe("processing");
    await kill(first);

    const second = await open(dir, false);
    const job = await second.pages.getJob("acct_dev", job_id);
    expect(job).toMatchObject({ status: "failed", step: "analyzing_product", error: { code: "worker_terminated" } });
    // The quota no longer counts it, and a new job for the same product completes.
    const again = await second.pages.create("acct_dev", { product_id: product.id }, null);
    await second.onIdle();
    expect((await second.pages.getJob("acct_dev", again.job_id)).status).toBe("completed");
  });

  it("fails deployments left deploying, and the page can be deployed again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-recover-"));
    dirs.push(dir);
    const setup = await open(dir, false);
    const { job_id } = await setup.pages.create("acct_dev", { product: { title: "Tea", description: "Green tea", price: 5, product_type: "physical" } }, null);
    await setup.onIdle();
    const pageId = (await setup.pages.getJob("acct_dev", job_id)).page_id!;
    await stop(setup);

    const first = await open(dir, true);
    first.delays.deploymentStepMs = 1000;
    const started = await first.deployments.start("acct_dev", pageId, null);
    await parked;
    await kill(first);

    const second = await open(dir, false);
    const d = await second.deployments.get("acct_dev", pageId, started.deployment_id);
    expect(d).toMatchObject({ status: "failed", deploy_step: "rendering", error_code: "worker_terminated" });
    const next = await second.deployments.start("acct_dev", pageId, null);
    await second.onIdle();
    expect((await second.deployments.get("acct_dev", pageId, next.deployment_id)).status).toBe("succeeded");
  });
});
