import { useEffect, useState } from "preact/hooks";
import { call, currentSimulate, dash, errorText } from "../api.js";
import { html } from "../html.js";
import { toHash } from "../route.js";
import { isRunning, JobItem, usePoll } from "./runs.js";

/** What the form's status line says about the generation it started, from the job as it is now. */
function outcome(job: any | undefined, started: { id: string; title: string } | null, account: string) {
  if (!started) return null;
  if (!job || isRunning(job.status)) return html`<p role="status">Generating a page for ${started.title}: ${job ? String(job.step).replace(/_/g, " ") : "queued"}...</p>`;
  if (job.status === "failed") return html`<p role="alert" class="error-text">Generation for ${started.title} failed: ${job.error?.code}: ${job.error?.message}</p>`;
  return html`<p role="status">Page generated for ${started.title}. <a href=${toHash("page", job.page_id, { account })}>Open it</a></p>`;
}

/** Pages of the account, generation jobs as they run (failed ones too), and generating a new page from a product. */
export function PagesView({ account, tick }: { account: string; tick: number }) {
  const [pages, setPages] = useState<any[] | null>(null);
  const [jobs, setJobs] = useState<any[] | null>(null);
  const [products, setProducts] = useState<any[]>([]);
  const [started, setStarted] = useState<{ id: string; title: string } | null>(null);
  const [error, setError] = useState("");
  const running = (jobs ?? []).some((j) => isRunning(j.status));
  const poll = usePoll(running);
  useEffect(() => {
    void call("GET", `/v1/accounts/${account}/pages?per_page=100`).then((a) => a.ok && setPages(a.json.data));
    void call("GET", `/v1/accounts/${account}/products?per_page=100`).then((a) => a.ok && setProducts(a.json.data));
  }, [account, tick]);
  useEffect(() => {
    void dash.get(`/jobs?account_id=${account}&limit=10`).then((a) => a.ok && setJobs(a.json.data));
  }, [account, tick, poll]);

  async function generate(e: Event) {
    e.preventDefault();
    const id = String(new FormData(e.target as HTMLFormElement).get("product_id"));
    setError("");
    const a = await call("POST", `/v1/accounts/${account}/pages`, { body: { product_id: id }, simulate: true });
    if (!a.ok) return setError(errorText(a));
    // The answer is an acceptance (job id and poll URL): shown at once as a job at its first step.
    const now = new Date().toISOString();
    const job = { job_id: a.json.data.job_id, status: "processing", step: "analyzing_product", step_detail: "Queued", step_times: {}, warnings: [], error: null, created_at: now, updated_at: now, simulate: currentSimulate() || null };
    setJobs((list) => [job, ...(list ?? []).filter((j) => j.job_id !== job.job_id)]);
    setStarted({ id: job.job_id, title: products.find((p) => p.id === id)?.title ?? id });
  }
  const watched = started ? jobs?.find((j) => j.job_id === started.id) : undefined;

  return html`
    <form class="card form" onSubmit=${generate} aria-labelledby="new-page">
      <h2 id="new-page">Generate a page</h2>
      ${products.length === 0
        ? html`<p class="hint">No products on this account yet: <a href=${toHash("products", "", { account })}>create one</a> first.</p>`
        : html`<label>Product <select name="product_id" required>
            ${products.map((p) => html`<option value=${p.id}>${p.title}</option>`)}
          </select></label>`}
      ${currentSimulate() && html`<p class="small">Lp-Simulate: <strong>${currentSimulate()}</strong> is on (Faults and data).</p>`}
      <button type="submit" disabled=${products.length === 0}>Generate</button>
      ${error ? html`<p role="alert" class="error-text">${error}</p>` : outcome(watched, started, account)}
    </form>
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Generation jobs</h2>
      ${jobs === null ? html`<p>Loading...</p>` : jobs.length === 0 ? html`<p class="hint">No generation yet.</p>` : ""}
      <ul class="plain">${(jobs ?? []).map((j) => html`<${JobItem} key=${j.job_id} job=${j} account=${account} />`)}</ul>
    </section>
    <section aria-labelledby="pages-title">
      <h2 id="pages-title">Pages</h2>
      ${pages === null
        ? html`<p>Loading...</p>`
        : pages.length === 0
          ? html`<p class="hint">No pages yet: generate one above.</p>`
          : html`<table class="stack">
              <caption class="sr-only">Pages</caption>
              <thead><tr><th scope="col">Slug</th><th scope="col">Status</th><th scope="col">Product</th><th scope="col">Live</th></tr></thead>
              <tbody>${pages.map(
                (p) => html`<tr>
                  <td data-label="Slug"><a href=${toHash("page", p.id, { account })}>${p.slug}</a></td>
                  <td data-label="Status"><span class=${`badge ${p.status}`}>${p.status}</span></td>
                  <td data-label="Product">${p.product?.title ?? "-"}</td>
                  <td class="wrap" data-label="Live">${p.deployed_url ? html`<a href=${p.deployed_url} target="_blank" rel="noopener">${p.deployed_url}</a>` : "not deployed"}</td>
                </tr>`,
              )}</tbody>
            </table>`}
    </section>`;
}
