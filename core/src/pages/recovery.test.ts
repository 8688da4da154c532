import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../db/database.js";
import { createMediaBlobs, toMediaBlobsPlace } from "../media/media-blobs.js";
import type { DomainEvent } from "../events/event-sink.js";
import { createCore, createManualClock, ensureDevCredentials, type Core } from "../index.js";
import { createManualScheduler } from "../webhooks/scheduler.js";

const START = "2026-05-01T00:00:00.000Z";

/**
 * A process that dies leaves its jobs `processing` and its deployments `deploying`, their rows still claimed
 * under its id. Here the first core's background work is parked on a sleep that never ends (as if the
 * process froze), its database is closed under it, and a second core opens the same folder, as
 * `lp serve` does after a crash: it takes the rows over before it answers anything.
 */
describe("recovery after a crash", () => {
  const dirs: string[] = [];
  const running: { core: Core; database: Database; media: ReturnType<typeof createMediaBlobs> }[] = [];
  afterEach(async () => {
    for (const { core } of [...running]) await stop(core);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-recover-"));
    dirs.push(dir);
    return dir;
  };

  /** Closes a core with what it was opened on; `kill`: without waiting for its parked runs, as a SIGKILL would. */
  async function stop(core: Core, kill = false): Promise<void> {
    const at = running.findIndex((r) => r.core === core);
    const [{ database, media }] = running.splice(at, 1);
    if (kill) await core.drain(0);
    else await core.close();
    await database.close();
    await media.dispose();
  }

  /** Opens a core; with `frozen`, background work stops forever at its first pause and `parked` resolves. */
  let parked: Promise<void> = Promise.resolve();
  async function open(dir: string, options: { frozen?: boolean; events?: DomainEvent[] } = {}) {
    const clock = createManualClock(START);
    // Timers (lease renewals, due times) move only when a test says: the frozen core's never fire.
    const scheduler = createManualScheduler(clock);
    let arrived!: () => void;
    parked = new Promise<void>((resolve) => (arrived = resolve));
    const target = { kind: "sqlite", file: join(dir, "lp.db") } as const;
    const database = await openDatabase(target);
    const media = createMediaBlobs(toMediaBlobsPlace(target, database, { clock }));
    const core = await createCore({
      database,
      media,
      clock,
      scheduler,
      publicUrl: () => "http://lp.test",
      events: options.events ? { emit: async (event) => void options.events!.push(event) } : undefined,
      sleep: options.frozen
        ? () => {
            arrived();
            return new Promise<void>(() => {});
          }
        : async () => {},
    });
    await ensureDevCredentials(database, clock, core.ids);
    running.push({ core, database, media });
    return { core, clock, scheduler, database };
  }

  /** A folder holding one generated page. */
  async function withPage(dir: string): Promise<string> {
    const { core } = await open(dir);
    const { job_id } = await core.pages.create("acct_dev", { product: { title: "Tea", description: "Green tea", price: 5, product_type: "physical" } }, null);
    await core.onIdle();
    const pageId = (await core.pages.getJob("acct_dev", job_id)).page_id!;
    await stop(core);
    return pageId;
  }

  it("fails jobs left processing with worker_terminated at the step they were in, with page.generation_failed", async () => {
    const dir = folder();
    const { core: first } = await open(dir, { frozen: true });
    first.delays.generationStepMs = 1000;
    const product = await first.products.create("acct_dev", { title: "Lamp", price: 10, product_type: "physical" });
    const { job_id } = await first.pages.create("acct_dev", { product_id: product.id }, null);
    await parked;
    expect((await first.pages.getJob("acct_dev", job_id)).status).toBe("processing");
    await stop(first, true);

    const events: DomainEvent[] = [];
    const { core: second } = await open(dir, { events });
    const job = await second.pages.getJob("acct_dev", job_id);
    expect(job).toMatchObject({ status: "failed", step: "analyzing_product", page_id: null, error: { code: "worker_terminated" } });
    expect(job.error?.message).toContain("analyzing_product");
    expect(events.map((e) => [e.type, (e.data as { job_id: string }).job_id])).toEqual([["page.generation_failed", job_id]]);
    // The quota no longer counts it, and a new job for the same product completes.
    const again = await second.pages.create("acct_dev", { product_id: product.id }, null);
    await second.onIdle();
    expect((await second.pages.getJob("acct_dev", again.job_id)).status).toBe("completed");
  });

  it("fails deployments left deploying, and the page can be deployed again", async () => {
    const dir = folder();
    const pageId = await withPage(dir);
    const { core: first } = await open(dir, { frozen: true });
    first.delays.deploymentStepMs = 1000;
    const started = await first.deployments.start("acct_dev", pageId, null);
    await parked;
    await stop(first, true);

    const { core: second } = await open(dir);
    const d = await second.deployments.get("acct_dev", pageId, started.deployment_id);
    expect(d).toMatchObject({ status: "failed", deploy_step: "rendering", error_code: "worker_terminated" });
    const next = await second.deployments.start("acct_dev", pageId, null);
    await second.onIdle();
    expect((await second.deployments.get("acct_dev", pageId, next.deployment_id)).status).toBe("succeeded");
  });

  it("runs a job a stopped process had claimed but not started, instead of failing it", async () => {
    const dir = folder();
    const { core: setup, database } = await open(dir);
    const product = await setup.products.create("acct_dev", { title: "Kettle", price: 30, product_type: "physical" });
    // Stopped before its worker claims it; then the claim of a process that died before its first step.
    await setup.queue.close();
    const { job_id } = await setup.pages.create("acct_dev", { product_id: product.id }, null);
    await database.db.updateTable("page_jobs").set({ lease_owner: "a-stopped-process", lease_expires_at: "2026-05-01T00:00:30.000Z" }).where("job_id", "=", job_id).execute();
    await stop(setup);

    const { core } = await open(dir);
    await core.onIdle();
    expect(await core.pages.getJob("acct_dev", job_id)).toMatchObject({ status: "completed", error: null });
  });

  it("fails, once it is due, a job whose request stopped between its product's transaction and the next", async () => {
    const dir = folder();
    const { core: setup, database } = await open(dir);
    await setup.queue.close();
    const { job_id } = await setup.pages.create("acct_dev", { product: { title: "Cut short", description: "Never linked", price: 2, product_type: "service" } }, null);
    // As the product's transaction left it: the job has no product yet, and is due only after a grace period.
    const row = await database.db.selectFrom("page_jobs").select(["request", "due_at"]).where("job_id", "=", job_id).executeTakeFirstOrThrow();
    await database.db
      .updateTable("page_jobs")
      .set({ request: JSON.stringify({ ...JSON.parse(row.request), product_id: "" }), due_at: "2026-05-01T00:00:30.000Z" })
      .where("job_id", "=", job_id)
      .execute();
    await stop(setup);

    const { core, clock, scheduler } = await open(dir);
    await core.onIdle();
    expect((await core.pages.getJob("acct_dev", job_id)).status).toBe("processing");
    await scheduler.advanceAsync(30_000, () => core.onIdle());
    expect(clock.now().toISOString()).toBe("2026-05-01T00:00:30.000Z");
    expect(await core.pages.getJob("acct_dev", job_id)).toMatchObject({ status: "failed", error: { code: "worker_terminated", message: "The server stopped while the job was being created." } });
  });
});
