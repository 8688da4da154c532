import { useEffect, useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html } from "../html.js";
import type { DashState } from "../app.js";
import { go, toHash, type Route } from "../route.js";
import { Deliveries } from "./deliveries.js";
import { followDelivery, type Outcome } from "./outcome.js";

const ENDPOINTS = "/v1/developer/webhook-endpoints";

/** Webhook endpoints of one application: state, actions, secrets shown once masked, and deliveries. */
export function WebhooksView({ state, tick, route }: { state: DashState; tick: number; route: Route }) {
  // The application and the endpoint whose deliveries are open are in the address (#/webhooks/<endpoint>?app=...).
  const appId = route.params.get("app") ?? state.apps[0]?.application_id ?? "";
  const openId = route.id || null;
  const setAppId = (app: string) => go(toHash("webhooks", "", { app }), true);
  const setOpenId = (id: string | null) => go(toHash("webhooks", id ?? "", { app: appId }));
  const [endpoints, setEndpoints] = useState<any[] | null>(null);
  const [message, setMessage] = useState<Outcome | null>(null);
  const [secret, setSecret] = useState<{ id: string; value: string } | null>(null);
  const [revealed, setRevealed] = useState(false);
  const load = () => (appId ? call("GET", `${ENDPOINTS}?per_page=100`, { appId }).then((a) => setEndpoints(a.ok ? a.json.data : [])) : Promise.resolve());
  useEffect(() => void load(), [appId, tick]);

  /** Runs an action and reports what really happened: a refused challenge or delivery is a failure, not "done". */
  async function act(label: string, method: string, path: string, body?: unknown, endpointId?: string) {
    setMessage({ text: `${label}...`, bad: false });
    const a = await call(method, `${ENDPOINTS}${path}`, { appId, body });
    void load();
    if (!a.ok) return setMessage({ text: `${label}: ${errorText(a)}`, bad: true });
    const data = a.json?.data ?? {};
    if (data.secret) {
      setSecret({ id: data.id, value: data.secret });
      setRevealed(false);
    }
    const challenge = data.verification ?? (data.outcome ? data : null);
    if (challenge?.outcome === "failed") {
      return setMessage({ text: `${label}: the endpoint failed the challenge (${challenge.error ?? `HTTP ${challenge.status_code}`}).`, bad: true });
    }
    if (challenge?.outcome === "succeeded") return setMessage({ text: `${label}: the endpoint answered the challenge (HTTP ${challenge.status_code} in ${challenge.latency_ms} ms).`, bad: false });
    if (a.status === 202 && endpointId && data.id) return followDelivery(appId, endpointId, data, label, setMessage);
    setMessage({ text: `${label}: done.`, bad: false });
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
    ${message && html`<p role=${message.bad ? "alert" : "status"} class=${message.bad ? "error-text" : ""}>${message.text}</p>`}
    ${secret && html`<div class="card" aria-labelledby="secret-title">
      <h2 id="secret-title" class="h3">Signing secret of ${secret.id}</h2>
      <p class="hint">Shown once, as the API returns it.</p>
      <code class="mono">${revealed ? secret.value : `whsec_${"•".repeat(12)}`}</code>
      <button type="button" onClick=${() => setRevealed(!revealed)}>${revealed ? "Hide" : "Reveal"}</button>
      <button type="button" onClick=${() => navigator.clipboard?.writeText(secret.value).then(() => setMessage({ text: "Secret copied.", bad: false }))}>Copy</button>
    </div>`}
    <form class="card form" onSubmit=${create} aria-labelledby="new-endpoint">
      <h2 id="new-endpoint">New endpoint</h2>
      <label>URL <input name="url" type="url" required /></label>
      <label>Events (comma separated) <input name="events" value="product.created" /></label>
      <button type="submit">Create endpoint</button>
    </form>
    ${endpoints === null
      ? html`<p>Loading...</p>`
      : html`<table class="stack">
          <caption class="sr-only">Endpoints</caption>
          <thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Circuit</th><th scope="col">Events</th><th scope="col">Concurrency</th><th scope="col">Actions</th></tr></thead>
          <tbody>${endpoints.map(
            (ep) => html`<tr>
              <td class="mono" data-label="URL"><div>${ep.url}<br /><span class="small">${ep.id}</span></div></td>
              <td data-label="Status"><span class=${`badge ${ep.status}`}>${ep.status}</span></td>
              <td data-label="Circuit">${ep.circuit?.state} (${ep.circuit?.consecutive_failures} failures)</td>
              <td class="wrap" data-label="Events">${ep.events.join(", ")}</td>
              <td data-label="Concurrency">${ep.concurrency_limit}</td>
              <td class="actions" data-label="Actions"><div>
                <button type="button" onClick=${() => act("Verify", "POST", `/${ep.id}/verify`, {})}>Verify</button>
                <button type="button" onClick=${() => act("Send test", "POST", `/${ep.id}/test`, {}, ep.id)}>Send test</button>
                <button type="button" onClick=${() => act("Rotate secret", "POST", `/${ep.id}/rotate-secret`, {})}>Rotate secret</button>
                ${ep.status === "paused"
                  ? html`<button type="button" onClick=${() => act("Resume", "PATCH", `/${ep.id}`, { status: "active" })}>Resume</button>`
                  : html`<button type="button" onClick=${() => act("Pause", "PATCH", `/${ep.id}`, { status: "paused" })}>Pause</button>`}
                <button type="button" aria-expanded=${openId === ep.id} onClick=${() => setOpenId(openId === ep.id ? null : ep.id)}>Deliveries</button>
              </div></td>
            </tr>`,
          )}</tbody>
        </table>`}
    ${openId && html`<${Deliveries} appId=${appId} endpointId=${openId} tick=${tick} />`}`;
}
