/**
 * Child process of the worker-death suite: a core on a shared Redis (records and queue) that starts
 * a generation (or, for `deployment`, generates a page and starts its deployment) and parks it at its first
 * step pause, printing `{"parked": ...ids}` once it is there, then waits to be killed.
 * Usage: node --import tsx worker-death.fixture.ts <redis-url> <prefix> generation|deployment
 */
import { createCore } from "../core.js";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createStores } from "../storage/create-storage.js";

if (process.argv[1]?.endsWith("worker-death.fixture.ts")) {
  const [url, prefix, kind] = process.argv.slice(2);
  let park = false;
  let parked: (() => void) | null = null;
  const core = await createCore({
    stores: createStores("redis", { url, prefix }),
    publicUrl: () => "http://lp.test",
    // Steps pause only once parking is on; the pause never ends.
    sleep: () => (park ? (parked?.(), new Promise<void>(() => {})) : Promise.resolve()),
    delays: { generationStepMs: 1, deploymentStepMs: 1 },
  });
  await ensureDevCredentials(core.database, core.clock, core.ids);
  const account = "acct_dev";
  const product = { title: "Desk lamp", description: "A lamp", price: 20, product_type: "physical" as const };
  const atPause = new Promise<void>((resolve) => (parked = resolve));
  if (kind === "deployment") {
    const { job_id } = await core.pages.create(account, { product }, null);
    await core.onIdle();
    const { page_id } = await core.pages.getJob(account, job_id);
    park = true;
    const { deployment_id } = await core.deployments.start(account, page_id!, null);
    await atPause;
    process.stdout.write(`${JSON.stringify({ parked: { page_id, deployment_id } })}\n`);
  } else {
    park = true;
    const { job_id } = await core.pages.create(account, { product }, null);
    await atPause;
    process.stdout.write(`${JSON.stringify({ parked: { job_id } })}\n`);
  }
}
