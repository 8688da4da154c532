import { useEffect, useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html } from "../html.js";
import type { DashState } from "../app.js";
import { Deliveries } from "./deliveries.js";

const ENDPOINTS = "/v1/developer/webhook-endpoints";

/** Webhook endpoints of one application: state, actions, secrets shown once masked, and deliveries. */
export function WebhooksView({ state, tick }: { state: DashState; tick: number }) {
  const [appId, setAppId] = useState(state.apps[0]?.application_id ?? "");
  const [endpoints, setEndpoints] = useState<any[] | null>(null);
  const [message, setMessage] = useState("");
  const [secret, setSecret] = useState<{ id: string; value: string } | null>(null);
  const [revealed, setRevealed] = useState(false);
  const [openId, setOpenId] = useState<string | null>(null);
  const load = () => (appId ? call("GET", `${ENDPOINTS}?per_page=100`, { appId }).then((a) => setEndpoints(a.ok ? a.json.data : [])) : Promise.resolve());
  useEffect(() => void load(), [appId, tick]);

  async function act(label: string, method: string, path: string, body?: unknown) {
    const a = await call(method, `${ENDPOINTS}${path}`, { appId, body });
    setMessage(a.ok ? `${label}: done.` : `${label}: ${errorText(a)}`);
    if (a.ok && a.json?.data?.secret) {
      setSecret({ id: a.json.data.id, value: a.json.data.secret });
      setRevealed(false);
    }
    void load();
  }

  async function create(e: Event) {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const events = String(f.get("events")).split(",").map((s) => s.trim()).filter(Boolean);
    await act("Create endpoint", "POST", "", { url: f.get("url"), events });
  }

  return html`
    <label>Application <select value=${appId} onChange=${(e: Event) => setAppId((e.target as HTMLSelectElement).value)}>
      ${state.apps.map((a) => html`<option value=${a.application_id}>${a.name} (${a.application_id})</option>`)}
    </select></label>
    <p role="status">${message}</p>
    ${secret && html`<div class="card" aria-labelledby="secret-title">
      <h2 id="secret-title" class="h3">Signing secret of ${secret.id}</h2>
      <p class="hint">Shown once, as the API returns it.</p>
      <code class="mono">${revealed ? secret.value : `whsec_${"•".repeat(12)}`}</code>
      <button type="button" onClick=${() => setRevealed(!revealed)}>${revealed ? "Hide" : "Reveal"}</button>
      <button type="button" onClick=${() => navigator.clipboard?.writeText(secret.value).then(() => setMessage("Secret copied."))}>Copy</button>
    </div>`}
    <form class="card form" onSubmit=${create} aria-labelledby="new-endpoint">
      <h2 id="new-endpoint">New endpoint</h2>
      <label>URL <input name="url" type="url" required /></label>
      <label>Events (comma separated) <input name="events" value="product.created" /></label>
      <button type="submit">Create endpoint</button>
    </form>
    ${endpoints === null
      ? html`<p>Loading...</p>`
      : html`<table>
          <caption class="sr-only">Endpoints</caption>
          <thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Circuit</th><th scope="col">Events</th><th scope="col">Concurrency</th><th scope="col">Actions</th></tr></thead>
          <tbody>${endpoints.map(
            (ep) => html`<tr>
              <td class="mono">${ep.url}<br /><span class="small">${ep.id}</span></td>
              <td><span class=${`badge ${ep.status}`}>${ep.status}</span></td>
              <td>${ep.circuit?.state} (${ep.circuit?.consecutive_failures} failures)</td>
              <td>${ep.events.join(", ")}</td>
              <td>${ep.concurrency_limit}</td>
              <td class="actions">
                <button type="button" onClick=${() => act("Verify", "POST", `/${ep.id}/verify`, {})}>Verify</button>
                <button type="button" onClick=${() => act("Send test", "POST", `/${ep.id}/test`, {})}>Send test</button>
                <button type="button" onClick=${() => act("Rotate secret", "POST", `/${ep.id}/rotate-secret`, {})}>Rotate secret</button>
                ${ep.status === "paused"
                  ? html`<button type="button" onClick=${() => act("Resume", "PATCH", `/${ep.id}`, { status: "active" })}>Resume</button>`
                  : html`<button type="button" onClick=${() => act("Pause", "PATCH", `/${ep.id}`, { status: "paused" })}>Pause</button>`}
                <button type="button" aria-expanded=${openId === ep.id} onClick=${() => setOpenId(openId === ep.id ? null : ep.id)}>Deliveries</button>
              </td>
            </tr>`,
          )}</tbody>
        </table>`}
    ${openId && html`<${Deliveries} appId=${appId} endpointId=${openId} tick=${tick} />`}`;
}
