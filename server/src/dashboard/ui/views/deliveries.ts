import { useEffect, useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html, when } from "../html.js";
import { followDelivery, type Outcome } from "./outcome.js";

/** The delivery log of one endpoint: filters, each delivery's attempts, and retrying one. */
export function Deliveries({ appId, endpointId, tick }: { appId: string; endpointId: string; tick: number }) {
  const [status, setStatus] = useState("");
  const [eventType, setEventType] = useState("");
  const [rows, setRows] = useState<any[] | null>(null);
  const [message, setMessage] = useState<Outcome | null>(null);
  const path = `/v1/developer/webhook-endpoints/${endpointId}/deliveries`;
  const load = () => call("GET", `${path}?per_page=50${status ? `&status=${status}` : ""}`, { appId }).then((a) => setRows(a.ok ? a.json.data : []));
  const [poll, setPoll] = useState(0);
  useEffect(() => void load(), [endpointId, status, tick, poll]);
  // Attempts run in the background: while one is pending, look again shortly.
  const pending = (rows ?? []).some((d) => d.status === "pending");
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => setPoll((n) => n + 1), 400);
    return () => clearTimeout(timer);
  }, [pending, poll]);

  async function retry(d: any) {
    const a = await call("POST", `${path}/${d.id}/retry`, { appId, body: {} });
    setPoll((n) => n + 1);
    if (!a.ok) return setMessage({ text: `Retry of ${d.id}: ${errorText(a)}`, bad: true });
    await followDelivery(appId, endpointId, d, `Retry of ${d.id}`, setMessage);
  }
  const shown = (rows ?? []).filter((d) => !eventType || d.event_type.includes(eventType));

  return html`
    <section class="panel" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries of ${endpointId}</h2>
      <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
        <label>Status <select value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
          <option value="">any</option><option>pending</option><option>succeeded</option><option>failed</option>
        </select></label>
        <label>Event type contains <input value=${eventType} onInput=${(e: Event) => setEventType((e.target as HTMLInputElement).value)} /></label>
      </form>
      ${message && html`<p role=${message.bad ? "alert" : "status"} class=${message.bad ? "error-text" : ""}>${message.text}</p>`}
      ${rows === null && html`<p>Loading...</p>`}
      ${rows !== null && shown.length === 0 && html`<p class="hint">No deliveries${status || eventType ? " match these filters" : " yet: events this endpoint subscribes to appear here"}.</p>`}
      <ul class="plain">
        ${shown.map(
          (d) => html`<li class="delivery card" data-id=${d.id} data-status=${d.status}>
            <details>
              <summary><span class=${`badge ${d.status}`}>${d.status}</span> ${d.event_type} · ${d.attempts.length} attempts · ${when(d.created_at)} · <span class="mono small">${d.id}</span></summary>
              <button type="button" onClick=${() => retry(d)}>Retry</button>
              <table class="stack">
                <caption class="sr-only">Attempts</caption>
                <thead><tr><th scope="col">#</th><th scope="col">Trigger</th><th scope="col">Started</th><th scope="col">Outcome</th><th scope="col">Status</th><th scope="col">ms</th><th scope="col">Error or body</th></tr></thead>
                <tbody>${d.attempts.map(
                  (t: any) => html`<tr class="attempt"><td data-label="#">${t.number}</td><td data-label="Trigger">${t.trigger}</td><td data-label="Started">${when(t.started_at)}</td><td data-label="Outcome">${t.outcome}</td><td data-label="Status">${t.status_code ?? "-"}</td><td data-label="ms">${t.latency_ms ?? "-"}</td>
                    <td class="mono small" data-label="Error or body"><span>${t.error ?? t.response_body ?? ""}</span></td></tr>`,
                )}</tbody>
              </table>
              <h3>Payload as sent</h3>
              <pre class="mono body" tabindex="0">${JSON.stringify(d.payload, null, 2)}</pre>
            </details>
          </li>`,
        )}
      </ul>
    </section>`;
}
