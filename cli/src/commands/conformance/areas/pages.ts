import { formatDuration } from "../../../runtime/durations.js";
import { need, type Check, type Exchange } from "../checks.js";
import { dataOf, itemsOf } from "../http.js";
import { pollAtPace, type Scenario } from "../scenario-context.js";
import { show } from "../schema-issues.js";

/** Pages: create from a product and inline, poll both jobs to `completed`, get, patch theme and SEO, list, delete. */
export async function pagesArea(s: Scenario): Promise<void> {
  const { check, http, ledger, state } = s;
  const base = s.accountPath("/pages");
  const path = (id: string) => s.accountPath(`/pages/${encodeURIComponent(id)}`);

  const fromProduct = await check("pages", "pages.create (product_id)", "202 with job_id and poll_url, Location = poll_url", async (c) => {
    const productId = need(state.productMultipart, "products.create (multipart)");
    const body = { product_id: productId, options: { language: "en" }, checkout_fields: [{ field_key: "email", label: "Email", field_type: "email" }] };
    const ex = await http.send(c, "POST", base, { body });
    return checkAccepted(s, c, ex, false);
  });
  const inlineTitle = s.title("Walnut serving board");
  const inline = await check("pages", "pages.create (inline product)", "202 with job_id and poll_url, Location = poll_url", async (c) => {
    const body = { product: { title: inlineTitle, description: "Made by lp conformance; deleted at the end of the run.", price: 35, product_type: "physical" } };
    const ex = await http.send(c, "POST", base, { body });
    return checkAccepted(s, c, ex, true);
  });

  state.page = await check("pages", "jobs.get (product_id)", "processing, then completed: step done, page_id, builder_url, completed_at", (c) =>
    pollJob(s, c, need(fromProduct, "pages.create (product_id)"), "page (from the product)"),
  );
  state.pageInline = await check("pages", "jobs.get (inline product)", "processing, then completed: step done, page_id, builder_url, completed_at", (c) =>
    pollJob(s, c, need(inline, "pages.create (inline product)"), "page (inline product)"),
  );

  const before = await check("pages", "pages.get", "200 with the page, draft, built from the product", async (c) => {
    const id = need(state.page, "jobs.get (product_id)");
    const ex = await http.send(c, "GET", path(id));
    if (!checkPage(s, c, ex, id)) return undefined;
    const page = dataOf(ex);
    c.rule(page.product?.id === state.productMultipart, `data.product.id: expected the product ${state.productMultipart}, got ${show(page.product?.id)}`);
    c.rule(page.status === "draft", `data.status: expected "draft" before any deployment, got ${show(page.status)}`);
    c.rule(page.deployed_url === null, "data.deployed_url: expected null before any deployment");
    return page;
  });

  await check("pages", "pages.get (inline product)", "200 with the page and its new product", async (c) => {
    const id = need(state.pageInline, "jobs.get (inline product)");
    const ex = await http.send(c, "GET", path(id));
    if (!checkPage(s, c, ex, id)) return;
    const product = dataOf(ex).product ?? {};
    c.rule(product.title === inlineTitle, `data.product.title: expected ${show(inlineTitle)}, got ${show(product.title)}`);
    if (ledger.add("product", product.id, "product (inline, made by pages.create)")) ledger.add("page", id, "page (inline product)", { productId: product.id });
  });

  await check("pages", "pages.update", "200 with the theme and SEO merged (JSON Merge Patch)", async (c) => {
    const id = need(state.page, "jobs.get (product_id)");
    const patch = { global_theme: { primaryColor: "#0a7d5a" }, seo_config: { title: s.title("SEO title"), description: "Checked by lp conformance." } };
    const ex = await http.send(c, "PATCH", path(id), { body: patch });
    if (!checkPage(s, c, ex, id)) return;
    const page = dataOf(ex);
    c.rule(String(page.global_theme?.primaryColor).toLowerCase() === "#0a7d5a", `data.global_theme.primaryColor: expected "#0a7d5a", got ${show(page.global_theme?.primaryColor)}`);
    for (const [key, value] of Object.entries(before?.global_theme ?? {})) {
      if (key !== "primaryColor") c.rule(page.global_theme?.[key] === value, `data.global_theme.${key}: changed by a patch that did not name it`);
    }
    c.same(page.seo_config ?? {}, patch.seo_config, ["title", "description"], "data.seo_config");
  });

  await check("pages", "pages.list", "200 with both pages for q, one for product_id", async (c) => {
    const own = [state.page, state.pageInline].filter((id): id is string => id !== undefined);
    need(own.length ? own : undefined, "jobs.get");
    const all = await listPages(s, c, { q: s.opts.runId, per_page: 100 });
    for (const id of own) c.rule(all.includes(id), `the page ${id} is missing for q=${s.opts.runId}`);
    if (state.page && state.productMultipart) {
      const filtered = await listPages(s, c, { product_id: state.productMultipart, per_page: 100 });
      c.rule(filtered.includes(state.page), `the page ${state.page} is missing for product_id=${state.productMultipart}`);
      if (state.pageInline) c.rule(!filtered.includes(state.pageInline), `the page ${state.pageInline} of another product was listed for product_id=${state.productMultipart}`);
    }
  });

  const deleted = await check("pages", "pages.delete", "204", async (c) => {
    const id = need(state.pageInline, "jobs.get (inline product)");
    // Its product is known first, so that the clean-up can delete it too.
    need(ledger.get("page", id)?.productId, "pages.get (inline product)");
    const ex = await http.send(c, "DELETE", path(id));
    c.status(ex, 204);
    if (ex.status < 200 || ex.status >= 300) return undefined;
    ledger.markDeleted("page", id);
    return id;
  });
  await check("pages", "pages.get (deleted)", "404 not_found in the error envelope", async (c) => {
    c.envelope(await http.send(c, "GET", path(need(deleted, "pages.delete"))), "not_found");
  });
}

/** A 202 of page creation: `pageAcceptedResponse`, poll_url naming the job, Location = poll_url. */
function checkAccepted(s: Scenario, c: Check, ex: Exchange, inline: boolean): string | undefined {
  const jobId = s.ledger.fromAnswer(ex, "job", inline ? "job (inline product)" : "job (from the product)", "job_id", { inline });
  c.status(ex, 202);
  c.schema(ex.body, s.contract.pageAcceptedResponse);
  const { poll_url: pollUrl } = dataOf(ex);
  if (jobId) c.rule(typeof pollUrl === "string" && pollUrl.endsWith(`/pages/jobs/${jobId}`), `data.poll_url: expected the path of the job ${jobId}, got ${show(pollUrl)}`);
  const location = ex.headers.get("location");
  c.rule(location !== null && location === pollUrl, `header Location: expected data.poll_url, got ${location === null ? "none" : show(location)}`);
  return jobId;
}

/** Polls a job at the pace until it settles; every answer is held to `jobResponse`, the steps to their order. */
async function pollJob(s: Scenario, c: Check, jobId: string, label: string): Promise<string | undefined> {
  const steps = s.contract.jobSchema.shape.step.options as readonly string[];
  let lastStep = -1;
  const { value: job, done } = await pollAtPace(s, s.opts.jobTimeoutMs, async () => {
    const ex = await s.http.send(c, "GET", s.accountPath(`/pages/jobs/${encodeURIComponent(jobId)}`));
    if (!c.status(ex, 200)) return { value: undefined, done: true };
    c.schema(ex.body, s.contract.jobResponse);
    const job = dataOf(ex);
    const at = steps.indexOf(job.step);
    c.rule(at < 0 || at >= lastStep, `data.step went back from ${steps[lastStep]} to ${job.step} (steps run ${steps.join(", ")})`);
    lastStep = Math.max(lastStep, at);
    if (job.status === "processing") {
      for (const field of ["page_id", "builder_url", "completed_at"]) c.rule(job[field] === null, `data.${field}: expected null while processing`);
    }
    return { value: job, done: job.status !== "processing" };
  });
  if (!job) return undefined;
  if (!done) {
    c.problem(`still processing after ${formatDuration(s.opts.jobTimeoutMs)} (step ${job.step}); --job-timeout waits longer`);
    return undefined;
  }
  c.rule(job.status === "completed", `data.status: expected "completed", got ${show(job.status)}${job.error ? ` (${show(job.error.code)}: ${show(job.error.message)})` : ""}`);
  c.rule(job.step === "done", `data.step: expected "done" once completed, got ${show(job.step)}`);
  for (const field of ["page_id", "builder_url", "completed_at"]) c.rule(typeof job[field] === "string", `data.${field}: expected a value once completed, got ${show(job[field])}`);
  c.rule(job.error === null, "data.error: expected null once completed");
  const pageId = s.ledger.add("page", job.page_id, label, { inline: s.ledger.get("job", jobId)?.inline });
  s.ledger.add("job", jobId, label, { pageId });
  return job.status === "completed" ? pageId : undefined;
}

/** A page answer: status 200, `pageResponse`, the id asked for. */
function checkPage(s: Scenario, c: Check, ex: Exchange, id: string): boolean {
  if (!c.status(ex, 200)) return false;
  c.schema(ex.body, s.contract.pageResponse);
  return c.rule(dataOf(ex).id === id, `data.id: expected ${id}, got ${show(dataOf(ex).id)}`);
}

/** The ids of one list call; the run's own items are held to `pageListResponse`. */
async function listPages(s: Scenario, c: Check, query: Record<string, string | number>): Promise<string[]> {
  const ex = await s.http.send(c, "GET", s.accountPath("/pages"), { query });
  if (!c.status(ex, 200)) return [];
  const items = itemsOf(ex);
  c.schema(ex.body, s.contract.pageListResponse, { keep: (p) => p[0] !== "data" || typeof p[1] !== "number" || s.ledger.has("page", items[p[1]]?.id) });
  return items.map((item) => item.id);
}
