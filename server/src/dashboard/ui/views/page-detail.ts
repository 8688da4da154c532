import { useEffect, useState } from "preact/hooks";
import { call, dash, errorText } from "../api.js";
import { html, when } from "../html.js";
import { Timeline } from "./timeline.js";

const JOB_STEPS = ["analyzing_product", "writing_copy", "generating_images", "building_page", "done"];
const DEPLOY_STEPS = ["rendering", "uploading", "activating"];

/** One page: its generation job, builder preview, theme and SEO (editable), and deployments with a deploy button. */
export function PageDetailView({ account, pageId, tick }: { account: string; pageId: string; tick: number }) {
  const [page, setPage] = useState<any>(null);
  const [jobs, setJobs] = useState<any[]>([]);
  const [deployments, setDeployments] = useState<any[]>([]);
  const [message, setMessage] = useState("");
  const [poll, setPoll] = useState(0);
  const base = `/v1/accounts/${account}/pages/${pageId}`;
  useEffect(() => {
    void call("GET", base).then((a) => setPage(a.ok ? a.json.data : { error: errorText(a) }));
    void dash.get(`/jobs?account_id=${account}`).then((a) => a.ok && setJobs(a.json.data.filter((j: any) => j.page_id === pageId)));
    void call("GET", `${base}/deployments?per_page=20`).then((a) => a.ok && setDeployments(a.json.data));
  }, [account, pageId, tick, poll]);
  // A deployment in progress moves on in the background: look again shortly until it settles.
  const running = deployments.some((d) => d.status === "deploying");
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(() => setPoll((n) => n + 1), 400);
    return () => clearTimeout(timer);
  }, [running, poll]);

  async function deploy() {
    const a = await call("POST", `${base}/deployments`, { body: {}, simulate: true });
    setMessage(a.ok ? `Deployment ${a.json.data.deployment_id} started.` : errorText(a));
    setPoll((n) => n + 1);
  }

  async function save(e: Event) {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const body = {
      global_theme: { primaryColor: f.get("primaryColor"), backgroundColor: f.get("backgroundColor"), textColor: f.get("textColor") },
      seo_config: { title: f.get("seo_title"), description: f.get("seo_description") },
    };
    const a = await call("PATCH", base, { body });
    setMessage(a.ok ? "Theme and SEO saved." : errorText(a));
    if (a.ok) setPage(a.json.data);
  }

  if (!page) return html`<p>Loading...</p>`;
  if (page.error) return html`<p role="alert">${page.error}</p>`;
  const theme = page.global_theme ?? {};
  const seo = page.seo_config ?? {};
  return html`
    <p><span class=${`badge ${page.status}`}>${page.status}</span> · <span class="mono">${page.slug}</span> · product ${page.product?.title}
      ${page.deployed_url && html` · <a href=${page.deployed_url} target="_blank" rel="noopener">live site</a>`}</p>
    <p role="status">${message}</p>
    <section class="card" aria-labelledby="job-title">
      <h2 id="job-title">Generation job</h2>
      ${jobs.length === 0 && html`<p class="hint">No job record for this page.</p>`}
      ${jobs.map(
        (j) => html`<div>
          <p class="mono small">${j.job_id}</p>
          <${Timeline} label="Generation steps" steps=${JOB_STEPS.slice(0, -1)} current=${j.step} status=${j.status}
            times=${[["started", j.created_at], ["updated", j.updated_at], ["completed", j.completed_at]]} />
          ${j.warnings?.length > 0 && html`<ul>${j.warnings.map((w: any) => html`<li>Warning: ${w.message ?? JSON.stringify(w)}</li>`)}</ul>`}
          ${j.error && html`<p role="alert">Error ${j.error.code}: ${j.error.message}</p>`}
        </div>`,
      )}
    </section>
    <section class="card" aria-labelledby="deploy-title">
      <h2 id="deploy-title">Deployments</h2>
      <button type="button" onClick=${deploy}>Deploy</button>
      ${deployments.length === 0 && html`<p class="hint">Not deployed yet.</p>`}
      <ul class="plain">
        ${deployments.map(
          (d) => html`<li class="deployment" data-status=${d.status}>
            <p class="mono small">${d.id} · ${when(d.created_at)}</p>
            <${Timeline} label=${`Deployment ${d.id}`} steps=${DEPLOY_STEPS} current=${d.deploy_step} status=${d.status}
              times=${[["started", d.created_at], ["updated", d.updated_at], ["deployed", d.deployed_at]]} />
            ${d.error_code && html`<p role="alert">Error ${d.error_code}: ${d.error_message}</p>`}
          </li>`,
        )}
      </ul>
    </section>
    <form class="card form" onSubmit=${save} aria-labelledby="theme-title">
      <h2 id="theme-title">Theme and SEO</h2>
      <label>Primary colour <input type="color" name="primaryColor" value=${theme.primaryColor} /></label>
      <label>Background colour <input type="color" name="backgroundColor" value=${theme.backgroundColor} /></label>
      <label>Text colour <input type="color" name="textColor" value=${theme.textColor} /></label>
      <label>SEO title <input name="seo_title" value=${seo.title} maxlength="200" /></label>
      <label>SEO description <textarea name="seo_description" maxlength="500">${seo.description}</textarea></label>
      <button type="submit">Save theme and SEO</button>
    </form>
    <section class="card" aria-labelledby="preview-title">
      <h2 id="preview-title">Builder preview</h2>
      <iframe src=${previewSrc(page.builder_url)} title=${`Builder preview of ${page.slug}`} class="preview" sandbox="allow-same-origin"></iframe>
    </section>`;
}

/** The builder link on this origin: its path with the signed query that opens it (the host may differ behind a proxy). */
function previewSrc(builderUrl: string): string {
  const url = new URL(builderUrl);
  return `${url.pathname}${url.search}`;
}
