import { forEachLimited, type CrashApi } from "./crash-api.js";
import type { Ledger, ProductEntry } from "./crash-ledger.js";

/** What one check of the ledger against a restarted server read and found wrong. */
export interface CheckResult {
  violations: string[];
  checked: { products: number; jobs: number; pages: number; deployments: number; sites: number };
}

const JOB_FAILURES = ["worker_terminated", "product_not_found"];

/**
 * Reads back, from a freshly restarted server, everything the ledger holds as acknowledged, and
 * reports each difference. What a check reads back is on disk and must survive every later crash, so
 * it is folded into the ledger: unconfirmed titles and deletes collapse to what was stored, and every
 * image seen becomes one that must stay.
 */
export async function checkLedger(api: CrashApi, ledger: Ledger): Promise<CheckResult> {
  const violations: string[] = [];
  const checked = { products: 0, jobs: 0, pages: 0, deployments: 0, sites: 0 };
  const fail = (what: string) => void violations.push(what);

  // Work the kill left due (not yet begun) runs after the restart, and changes what the checks below read (a
  // deployment's success sets its page's address): it finishes first, then everything is read once.
  await forEachLimited([...ledger.jobs], 8, async (jobId) => void (await settled(() => api.call("GET", `pages/jobs/${jobId}`), (answer) => answer.json?.data?.status !== "processing")));
  await forEachLimited(ledger.deployments, 8, async ({ id, pageId }) => void (await settled(() => api.call("GET", `pages/${pageId}/deployments/${id}`), (answer) => answer.json?.data?.status !== "deploying")));

  await forEachLimited([...ledger.products.values()], 8, async (entry) => {
    checked.products++;
    const r = await api.call("GET", `products/${entry.id}`);
    if (r.status === 404 && entry.deleted !== "no") return void (entry.deleted = "yes");
    if (r.status !== 200) return fail(`product ${entry.id} (deleted: ${entry.deleted}): GET answered ${r.status}`);
    if (entry.deleted === "yes") return fail(`product ${entry.id} was deleted (204) but reads back`);
    entry.deleted = "no";
    checkProduct(entry, r.json.data, fail);
  });

  await forEachLimited([...ledger.jobs], 8, async (jobId) => {
    checked.jobs++;
    // A job the killed process had not begun is due, and runs after the restart: it must finish, not stay.
    const r = await settled(() => api.call("GET", `pages/jobs/${jobId}`), (answer) => answer.json?.data?.status !== "processing");
    if (r.status !== 200) return fail(`job ${jobId}: GET answered ${r.status}`);
    const job = r.json.data;
    if (job.status === "processing") return fail(`job ${jobId} is still processing ${SETTLE_MS / 1000} s after the restart (step ${job.step})`);
    ledger.jobsToPoll.delete(jobId);
    if (job.status === "failed" && !JOB_FAILURES.includes(job.error?.code)) fail(`job ${jobId} failed with ${JSON.stringify(job.error)}`);
    if (job.status === "completed" && !ledger.pages.has(job.page_id)) ledger.pages.set(job.page_id, { id: job.page_id, deleted: "no", busy: false });
  });

  const deployedPaths = new Map<string, string>();
  await forEachLimited([...ledger.pages.values()], 8, async (page) => {
    checked.pages++;
    const r = await api.call("GET", `pages/${page.id}`);
    if (r.status === 404 && page.deleted !== "no") return void (page.deleted = "yes");
    if (r.status !== 200) return fail(`page ${page.id} (deleted: ${page.deleted}): GET answered ${r.status}`);
    if (page.deleted === "yes") return fail(`page ${page.id} was deleted (204) but reads back`);
    page.deleted = "no";
    if (r.json.data.deployed_url) deployedPaths.set(page.id, new URL(r.json.data.deployed_url).pathname);
  });

  const succeeded = new Set<string>();
  await forEachLimited(ledger.deployments, 8, async ({ id, pageId }) => {
    if (ledger.pages.get(pageId)?.deleted !== "no") return;
    checked.deployments++;
    const r = await settled(() => api.call("GET", `pages/${pageId}/deployments/${id}`), (answer) => answer.json?.data?.status !== "deploying");
    if (r.status !== 200) return fail(`deployment ${id}: GET answered ${r.status}`);
    const d = r.json.data;
    if (d.status === "deploying") return fail(`deployment ${id} is still deploying ${SETTLE_MS / 1000} s after the restart (step ${d.deploy_step})`);
    if (d.status === "failed" && d.error_code !== "worker_terminated") fail(`deployment ${id} failed with ${d.error_code}: ${d.error_message}`);
    if (d.status === "succeeded") succeeded.add(pageId);
  });

  await forEachLimited([...succeeded], 8, async (pageId) => {
    checked.sites++;
    const path = deployedPaths.get(pageId);
    if (!path) return fail(`page ${pageId} has a succeeded deployment but no deployed_url`);
    const r = await api.call("GET", path, { authorization: "" });
    if (r.status !== 200 || !r.text.includes("<html")) fail(`site ${path} of page ${pageId} answered ${r.status}`);
  });

  return { violations, checked };
}

/** Compares one product read back with what its ledger entry allows, then adopts what was read. */
function checkProduct(entry: ProductEntry, data: any, fail: (what: string) => void) {
  const titles = [entry.title, ...entry.unconfirmedTitles];
  if (!titles.includes(data.title)) fail(`product ${entry.id}: title ${JSON.stringify(data.title)}, expected one of ${JSON.stringify(titles)}`);
  if (data.price !== entry.price) fail(`product ${entry.id}: price ${data.price}, expected ${entry.price}`);
  const urls: string[] = data.images.map((img: { url: string }) => img.url);
  for (const url of entry.images) if (!urls.includes(url)) fail(`product ${entry.id}: acknowledged image ${url} is missing`);
  const orders = data.images.map((img: { display_order: number }) => img.display_order).sort((a: number, b: number) => a - b);
  if (orders.some((order: number, i: number) => order !== i)) fail(`product ${entry.id}: display_order ${JSON.stringify(orders)} is not 0..n-1`);
  entry.title = data.title;
  entry.unconfirmedTitles = [];
  entry.images = new Set(urls);
}

/** How long work left due by the kill may take to finish after the restart. */
const SETTLE_MS = 15_000;

/** `read`'s answer once `done` holds for it, or its last answer after {@link SETTLE_MS}. */
async function settled<T>(read: () => Promise<T>, done: (answer: T) => boolean): Promise<T> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const answer = await read();
    if (done(answer) || Date.now() >= deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
