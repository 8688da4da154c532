import { NoAnswer } from "./checks.js";
import { dataOf } from "./http.js";
import type { Entry } from "./ledger.js";
import { abortableSleep, pollAtPace, type Scenario } from "./scenario-context.js";
import type { CleanupResult } from "./types.js";

/** How long the clean-up waits for a job still generating, so that its page can be deleted too. */
export const CLEANUP_JOB_WAIT_MS = 30_000;

/** After this many requests in a row without an answer, the rest is reported as left behind without trying. */
const SILENT_LIMIT = 2;

/**
 * Deletes every record the run made and has not deleted: webhook endpoints, then pages (with their
 * deployments; a job still generating is waited for, at the poll pace, for its page), then products.
 * Runs after a failure or an interruption too; touches nothing the ledger does not hold.
 */
export async function cleanUp(s: Scenario, keep: boolean): Promise<CleanupResult> {
  const result: CleanupResult = { kept: keep, deleted: [], left: [] };
  if (keep) return result;
  // The run's signal may be aborted (Ctrl-C): the clean-up's pauses have their own.
  const quiet: Scenario = { ...s, signal: new AbortController().signal, sleep: (ms) => abortableSleep(ms, new AbortController().signal) };
  const { ledger, http } = s;
  let silent = 0;
  const open = (kind: Entry["kind"]) => ledger.entries.filter((e) => e.kind === kind && !e.deleted);
  const leave = (e: Entry, reason: string): void => {
    result.left.push({ kind: e.kind, id: e.id, reason });
  };

  /** Runs one step for `entry`; silence counts towards giving up, any other failure is reported. */
  async function attempt(entry: Entry, step: () => Promise<void>): Promise<void> {
    if (silent >= SILENT_LIMIT) return leave(entry, "the instance stopped answering");
    try {
      await step();
      silent = 0;
    } catch (error) {
      if (error instanceof NoAnswer) silent++;
      leave(entry, (error as Error).message);
    }
  }

  async function remove(entry: Entry, path: string): Promise<void> {
    const ex = await http.send(null, "DELETE", path, { ignoreRunSignal: true });
    // A 404 means it is gone already (a page deleted with its product, an endpoint deleted twice).
    if (ex.status !== 204 && ex.status !== 200 && ex.status !== 404) throw new Error(`DELETE ${path}: status ${ex.status}`);
    entry.deleted = true;
    result.deleted.push({ kind: entry.kind, id: entry.id });
  }

  for (const endpoint of open("webhook_endpoint")) {
    await attempt(endpoint, () => remove(endpoint, `/v1/developer/webhook-endpoints/${encodeURIComponent(endpoint.id)}`));
  }

  for (const job of open("job").filter((j) => !j.pageId)) {
    await attempt(job, async () => {
      const path = s.accountPath(`/pages/jobs/${encodeURIComponent(job.id)}`);
      const { value } = await pollAtPace(quiet, CLEANUP_JOB_WAIT_MS, async () => {
        const data = dataOf(await http.send(null, "GET", path, { ignoreRunSignal: true }));
        return { value: data, done: data.status !== "processing" };
      });
      if (typeof value.page_id === "string") job.pageId = ledger.add("page", value.page_id, `page (of ${job.label})`, { inline: job.inline });
      else if (value.status === "processing") throw new Error(`still generating after ${CLEANUP_JOB_WAIT_MS / 1000}s; its page will be left`);
      else job.deleted = true; // A job that failed made no page: nothing to delete.
    });
  }

  for (const page of open("page")) {
    await attempt(page, async () => {
      const path = s.accountPath(`/pages/${encodeURIComponent(page.id)}`);
      if (page.inline && !page.productId) {
        const product = dataOf(await http.send(null, "GET", path, { ignoreRunSignal: true })).product;
        page.productId = ledger.add("product", product?.id, "product (inline, made by pages.create)");
      }
      await remove(page, path);
    });
  }

  for (const product of open("product")) {
    await attempt(product, () => remove(product, s.accountPath(`/products/${encodeURIComponent(product.id)}`)));
  }
  // Jobs and deployments went with their pages; what is still open belongs to a page that was left.
  for (const e of ledger.entries) {
    if (e.deleted || !e.pageId) continue;
    if (ledger.get("page", e.pageId)?.deleted) e.deleted = true;
    else if (!result.left.some((l) => l.kind === e.kind && l.id === e.id)) leave(e, `goes with the page ${e.pageId}, which was left`);
  }
  return result;
}
