import { afterEach, beforeEach, expect, it } from "vitest";
import type { Database } from "../db/database.js";
import { createCore, type Core } from "../core.js";
import { createManualClock } from "../deps.js";
import type { DomainEvent } from "../events/event-sink.js";
import { describeDatabases } from "../testing/databases.js";
import { createManualScheduler } from "../webhooks/scheduler.js";
import { createDeploymentRepository } from "../deployments/deployment-repository.js";
import { at, seedAccount, seedProduct, toJob, toPage, uuidOf } from "./page-records.fixture.js";
import { createPageRepository } from "./page-repository.js";

const A = "acct_a";
const PRODUCT = uuidOf(1, 1);
const JOB = uuidOf(2, 1);
const STOPPED_JOB = uuidOf(2, 2);
const PAGE = uuidOf(3, 1);
const DEPLOYMENT = uuidOf(4, 1);
/** When the stopped process's claims lapse: four minutes after the core opens. */
const LAPSE = at(5);

/**
 * Work whose run stopped part way (its process died) is left claimed, a step recorded. A core taking it
 * over settles it as interrupted: at once when it opens on SQLite (one process owns the file), and on
 * PostgreSQL, which several processes share, once the stopped process's lease has lapsed.
 */
describeDatabases("work left by a stopped process", ({ kind, open }) => {
  let database: Database;
  let core: Core;
  const events: DomainEvent[] = [];
  const clock = createManualClock(at(1));
  const scheduler = createManualScheduler(clock);

  beforeEach(async () => {
    clock.set(at(1));
    events.length = 0;
    database = await open();
    const pages = createPageRepository(database.dialect);
    const deployments = createDeploymentRepository(database.dialect);
    await seedAccount(database.db, A);
    await seedProduct(database.db, A, PRODUCT);
    await pages.insertJob(database.db, toJob(A, JOB, PRODUCT, { status: "completed", step: "done", completed_at: at(0) }));
    await pages.insertPage(database.db, toPage(A, PAGE, JOB, PRODUCT));
    // A job at its second step and a deployment at its first, both claimed by a process that stopped.
    const stepped = { step_times: { analyzing_product: at(0), writing_copy: at(0, 30) } };
    await pages.insertJob(database.db, toJob(A, STOPPED_JOB, PRODUCT, { step: "writing_copy", ...stepped }));
    await deployments.insertDeployment(database.db, {
      id: DEPLOYMENT,
      page_id: PAGE,
      account_id: A,
      status: "deploying",
      deploy_step: "rendering",
      error_code: null,
      error_message: null,
      deployed_url: null,
      deployed_at: null,
      created_at: at(0),
      updated_at: at(0),
      simulate: null,
      step_times: { rendering: at(0) },
    });
    for (const table of ["page_jobs", "deployments"] as const) {
      await database.db.updateTable(table).set({ lease_owner: "a-stopped-process", lease_expires_at: LAPSE }).where("due_at", "is not", null).execute();
    }
    core = await createCore({ database, clock, scheduler, publicUrl: () => "http://lp.test", events: { emit: async (event) => void events.push(event) } });
  });
  afterEach(async () => {
    await core.close();
  });

  const job = () => createPageRepository(database.dialect).readJob(database.db, STOPPED_JOB);
  const deployment = () => createDeploymentRepository(database.dialect).readDeployment(database.db, DEPLOYMENT);

  it("fails the job and the deployment with worker_terminated at their steps, with their events, and frees the page", async () => {
    await core.onIdle();
    if (kind === "postgres") {
      // Another process may still hold them: nothing is taken before the lease lapses.
      expect((await job())?.status).toBe("processing");
      expect((await deployment())?.status).toBe("deploying");
      await scheduler.advanceAsync(Date.parse(LAPSE) - Date.parse(at(1)), () => core.onIdle());
    }
    expect(await job()).toMatchObject({ status: "failed", step: "writing_copy", error: { code: "worker_terminated", message: "The server stopped while the job was at step writing_copy." } });
    expect(await deployment()).toMatchObject({ status: "failed", deploy_step: "rendering", error_code: "worker_terminated", error_message: "The server stopped while the deployment was at step rendering." });
    expect(events.map((e) => e.type).sort()).toEqual(["deployment.failed", "page.generation_failed"]);
    // Settled: never due again, and nobody's claim.
    const rows = await database.db.selectFrom("page_jobs").select(["due_at", "lease_owner"]).where("job_id", "=", STOPPED_JOB).execute();
    expect(rows).toEqual([{ due_at: null, lease_owner: null }]);
    // The page may be deployed again.
    await expect(core.deployments.start(A, PAGE, null)).resolves.toMatchObject({ deployed_url: null });
  });
});
