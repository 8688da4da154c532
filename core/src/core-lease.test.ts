import { createReceiver, type Receiver } from "@lp/webhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ensureDevCredentials } from "./accounts/dev-credentials.js";
import { createCore, type Core } from "./core.js";
import { openDatabase, type Database } from "./db/database.js";
import { createManualClock } from "./deps.js";
import type { FetchLike } from "./webhooks/http-attempt.js";
import { createManualScheduler } from "./webhooks/scheduler.js";
import { endpointCreateSchema } from "./webhooks/schemas.js";

const NOW = "2026-03-01T10:00:00.000Z";

/**
 * `leaseMs` is how long every claim of the core's background work holds: a generation job, a deployment and a
 * webhook delivery, each claimed while its run is parked, carry a lease that lapses `leaseMs` after the claim (the
 * default is 30 s). Tests of processes sharing PostgreSQL shorten it so that a killed process's work is taken over soon.
 */
describe("a core's lease", () => {
  let database: Database;
  let core: Core;
  let receiver: Receiver;
  let parked = false;
  beforeEach(async () => {
    receiver = await createReceiver();
    database = await openDatabase({ kind: "memory" });
  });
  afterEach(async () => {
    // The parked runs never end: stop without waiting for them, as a kill would.
    await core?.drain(0);
    await database.close();
    await receiver.close();
  });

  it("is the claim of a job, a deployment and a delivery: leaseMs after the claim", async () => {
    const clock = createManualClock(NOW);
    // Verification challenges reach the receiver; every later attempt stays in flight, its delivery claimed.
    const fetch: FetchLike = (url, init) => (String(init.body).includes('"webhook.verification"') ? globalThis.fetch(url, init) : new Promise<Response>(() => {}));
    core = await createCore({
      database,
      clock,
      scheduler: createManualScheduler(clock),
      fetch,
      publicUrl: () => "http://lp.test",
      leaseMs: 5_000,
      delays: { generationStepMs: 1, deploymentStepMs: 1 },
      sleep: () => (parked ? new Promise<void>(() => {}) : Promise.resolve()),
    });
    const creds = await ensureDevCredentials(database, clock, core.ids);
    const account = creds.account_id;
    const endpoint = await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url: receiver.url, events: ["product.created"] }));
    expect(endpoint.status).toBe("active");
    const made = await core.pages.create(account, { product: { title: "Kettle", description: "A kettle.", price: 30, product_type: "physical" } }, null);
    await core.queue.onIdle();
    const page = (await core.pages.getJob(account, made.job_id)).page_id!;
    expect(page).toBeTruthy();

    parked = true;
    const product = await core.products.create(account, { title: "Teapot", price: 12, product_type: "physical" });
    const job = await core.pages.create(account, { product_id: product.id }, null);
    const deployment = await core.deployments.start(account, page, null);
    const leases = async () => ({
      job: (await database.db.selectFrom("page_jobs").select("lease_expires_at").where("job_id", "=", job.job_id).executeTakeFirst())?.lease_expires_at,
      deployment: (await database.db.selectFrom("deployments").select("lease_expires_at").where("id", "=", deployment.deployment_id).executeTakeFirst())?.lease_expires_at,
      delivery: (await database.db.selectFrom("webhook_deliveries").select("lease_expires_at").where("lease_owner", "is not", null).executeTakeFirst())?.lease_expires_at,
    });
    const lapse = "2026-03-01T10:00:05.000Z";
    await vi.waitFor(async () => expect(await leases()).toEqual({ job: lapse, deployment: lapse, delivery: lapse }), { timeout: 5_000, interval: 20 });
  });
});
