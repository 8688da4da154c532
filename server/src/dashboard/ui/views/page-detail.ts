import { useEffect, useState } from "preact/hooks";
import { call, currentSimulate, dash, errorText } from "../api.js";
import { html } from "../html.js";
import { DeploymentItem, isRunning, JobItem, usePoll } from "./runs.js";

const COLOURS = [
  ["primaryColor", "Primary colour"],
  ["secondaryColor", "Secondary colour"],
  ["accentColor", "Accent colour"],
  ["backgroundColor", "Background colour"],
  ["textColor", "Text colour"],
] as const;

/** How long after a deployment the page's own "published" write may come. */
const STALE_AFTER_MS = 2000;

/** What the Deploy button's status line says, from the deployment it started as it is now. */
function deployOutcome(d: any | undefined, startedId: string | null) {
  if (!startedId) return null;
  if (!d || isRunning(d.status)) return html`<p role="status">Deployment ${startedId}: ${d?.deploy_step ?? "starting"}...</p>`;
  if (d.status === "failed") return html`<p role="alert" class="error-text">Deployment ${startedId} failed: ${d.error_code}: ${d.error_message}</p>`;
  return html`<p role="status">Deployment ${startedId} succeeded: <a href=${d.deployed_url} target="_blank" rel="noopener">live site</a>.</p>`;
}

/** One page: its generation job, deployments as live timelines, theme and SEO (editable), and the builder preview. */
export function PageDetailView({ account, pageId, tick }: { account: string; pageId: string; tick: number }) {
  const [page, setPage] = useState<any>(null);
  const [jobs, setJobs] = useState<any[]>([]);
  const [deployments, setDeployments] = useState<any[] | null>(null);
  const [started, setStarted] = useState<string | null>(null);
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  const [previewKey, setPreviewKey] = useState(0);
  const base = `/v1/accounts/${account}/pages/${pageId}`;
  const running = (deployments ?? []).some((d) => isRunning(d.status)) || jobs.some((j) => isRunning(j.status));
  const poll = usePoll(running);
  useEffect(() => {
    void call("GET", base).then((a) => (a.ok ? setPage(a.json.data) : a.status === 404 && setPage({ error: errorText(a) })));
  }, [account, pageId, tick]);
  useEffect(() => {
    void dash.get(`/jobs?account_id=${account}&page_id=${pageId}&limit=5`).then((a) => a.ok && setJobs(a.json.data));
    void dash.get(`/deployments?account_id=${account}&page_id=${pageId}`).then((a) => a.ok && setDeployments(a.json.data));
  }, [account, pageId, tick, poll]);

  async function deploy() {
    setMessage(null);
    const a = await call("POST", `${base}/deployments`, { body: {}, simulate: true });
    if (!a.ok) return setMessage({ text: `Deploy refused: ${errorText(a)}`, bad: true });
    // The answer is an acceptance (id and poll URL): shown at once as a deployment at its first step.
    const now = new Date().toISOString();
    const d = { id: a.json.data.deployment_id, status: "deploying", deploy_step: "rendering", created_at: now, updated_at: now, step_times: {}, simulate: currentSimulate() || null };
    setDeployments((list) => [d, ...(list ?? []).filter((x) => x.id !== d.id)]);
    setStarted(d.id);
  }

  async function save(e: Event) {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const theme: Record<string, string> = {};
    for (const [key] of COLOURS) theme[key] = String(f.get(key));
    theme.fontFamily = String(f.get("fontFamily"));
    const body = { global_theme: theme, seo_config: { title: f.get("seo_title"), description: f.get("seo_description") } };
    const a = await call("PATCH", base, { body });
    setMessage(a.ok ? { text: "Theme and SEO saved; the preview below shows them. Deploy to update the live site.", bad: false } : { text: `Not saved: ${errorText(a)}`, bad: true });
    if (a.ok) {
      setPage(a.json.data);
      setPreviewKey((k) => k + 1);
    }
  }

  if (!page) return html`<p>Loading...</p>`;
  if (page.error) return html`<p role="alert">${page.error}</p>`;
  const theme = page.global_theme ?? {};
  const seo = page.seo_config ?? {};
  const live = (deployments ?? []).find((d) => d.status === "succeeded");
  // Settling a deployment marks the page published a moment after `deployed_at`: only a change later than that counts.
  const stale = live && Date.parse(page.updated_at) - Date.parse(live.deployed_at) > STALE_AFTER_MS;
  return html`
    <p><span class=${`badge ${page.status}`}>${page.status}</span> · <span class="mono">${page.slug}</span> · product ${page.product?.title}
      ${page.deployed_url && html` · <a href=${page.deployed_url} target="_blank" rel="noopener">live site</a>`}</p>
    ${stale && html`<p class="notice warn">The live site is out of date: the page changed after its last deployment. Deploy to publish the changes.</p>`}
    ${message && html`<p role=${message.bad ? "alert" : "status"} class=${message.bad ? "error-text" : ""}>${message.text}</p>`}
    <section class="card" aria-labelledby="deploy-title">
      <h2 id="deploy-title">Deployments</h2>
      <button type="button" onClick=${deploy}>Deploy</button>
      ${currentSimulate() && html`<span class="small"> Lp-Simulate: <strong>${currentSimulate()}</strong></span>`}
      ${deployOutcome((deployments ?? []).find((d) => d.id === started), started)}
      ${deployments?.length === 0 && html`<p class="hint">Not deployed yet.</p>`}
      <ul class="plain">${(deployments ?? []).map((d) => html`<${DeploymentItem} key=${d.id} deployment=${d} />`)}</ul>
    </section>
    <section class="card" aria-labelledby="job-title">
      <h2 id="job-title">Generation job</h2>
      ${jobs.length === 0 && html`<p class="hint">No job record for this page (imported or generated before jobs were kept).</p>`}
      <ul class="plain">${jobs.map((j) => html`<${JobItem} key=${j.job_id} job=${j} account=${account} />`)}</ul>
    </section>
    <form class="card form" onSubmit=${save} aria-labelledby="theme-title">
      <h2 id="theme-title">Theme and SEO</h2>
      <div class="colours">
        ${COLOURS.map(([key, label]) => html`<label>${label} <input type="color" name=${key} value=${theme[key]} /></label>`)}
      </div>
      <label>Font family <input name="fontFamily" value=${theme.fontFamily} maxlength="200" /></label>
      <label>SEO title <input name="seo_title" value=${seo.title} maxlength="200" /></label>
      <label>SEO description <textarea name="seo_description" maxlength="500">${seo.description}</textarea></label>
      <button type="submit">Save theme and SEO</button>
    </form>
    <section class="card" aria-labelledby="preview-title">
      <h2 id="preview-title">Builder preview</h2>
      <iframe key=${previewKey} src=${previewSrc(page.builder_url)} title=${`Builder preview of ${page.slug}`} class="preview" sandbox="allow-same-origin"></iframe>
    </section>`;
}

/** The builder link on this origin: its path with the signed query that opens it (the host may differ behind a proxy). */
function previewSrc(builderUrl: string): string {
  const url = new URL(builderUrl);
  return `${url.pathname}${url.search}`;
}
