import { useEffect, useRef, useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html, when } from "../html.js";
import { ALL_EVENT_TYPES } from "@lp/contract/events";
import { followDelivery, type Outcome } from "./outcome.js";

/** Deliveries per page of the list; "Load older" adds the next page (the API's cursor). */
export const DELIVERY_PAGE = 25;
/** The event types a delivery can have (the verification challenge is never listed). */
const TYPES = ALL_EVENT_TYPES.filter((t) => t !== "webhook.verification");

/**
 * Merges a fresh first page into the rows shown: the first page replaces its own rows (their status may have
 * changed), older pages already loaded stay below it.
 */
export function mergeFirstPage(first: any[], shown: any[]): any[] {
  const ids = new Set(first.map((d) => d.id));
  const last = first[first.length - 1];
  return [...first, ...shown.filter((d) => !ids.has(d.id) && last && d.created_at <= last.created_at)];
}

/** The delivery log of one endpoint: filters, each delivery's attempts, older pages on demand, and retrying one. */
export function Deliveries({ appId, endpointId, tick }: { appId: string; endpointId: string; tick: number }) {
  const [status, setStatus] = useState("");
  const [eventType, setEventType] = useState("");
  const [rows, setRows] = useState<any[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  // The filters under which older pages were loaded: a refresh keeps them only while the filters stay the same.
  const olderFor = useRef<string | null>(null);
  const key = `${endpointId}|${status}|${eventType}`;
  const [message, setMessage] = useState<Outcome | null>(null);
  const path = `/v1/developer/webhook-endpoints/${endpointId}/deliveries`;
  const query = (cursor?: string) => {
    const q = new URLSearchParams({ per_page: String(DELIVERY_PAGE) });
    if (status) q.set("status", status);
    if (eventType) q.set("event_type", eventType);
    if (cursor) q.set("cursor", cursor);
    return `${path}?${q}`;
  };
  // A refresh reloads the first page; the older pages the user loaded stay (and their cursor with them).
  const load = () =>
    call("GET", query(), { appId }).then((a) => {
      const first = a.ok ? a.json.data : [];
      const older = olderFor.current === key;
      setRows((shown) => (older && shown ? mergeFirstPage(first, shown) : first));
      if (!older) setNext(a.ok && a.json.pagination?.has_more ? a.json.pagination.next_cursor : null);
    });
  const loadOlder = async () => {
    if (!next) return;
    const a = await call("GET", query(next), { appId });
    if (!a.ok) return setMessage({ text: `Older deliveries: ${errorText(a)}`, bad: true });
    olderFor.current = key;
    setRows((shown) => [...(shown ?? []), ...a.json.data.filter((d: any) => !(shown ?? []).some((s) => s.id === d.id))]);
    setNext(a.json.pagination?.has_more ? a.json.pagination.next_cursor : null);
  };
  const [poll, setPoll] = useState(0);
  useEffect(() => void load(), [endpointId, status, eventType, tick, poll]);
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
  const shown = rows ?? [];

  return html`
    <section class="panel" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries of ${endpointId}</h2>
      <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
        <label>Status <select value=${status} onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value)}>
          <option value="">any</option><option>pending</option><option>succeeded</option><option>failed</option>
        </select></label>
        <label>Event type <select value=${eventType} onChange=${(e: Event) => setEventType((e.target as HTMLSelectElement).value)}>
          <option value="">any</option>${TYPES.map((t) => html`<option>${t}</option>`)}
        </select></label>
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
      ${rows !== null && rows.length > 0 && html`<p class="hint" aria-live="polite">Showing ${rows.length} deliveries, newest first${next ? "; older ones remain" : ""}.</p>`}
      ${next && html`<div class="pager"><button type="button" onClick=${loadOlder}>Load ${DELIVERY_PAGE} older</button></div>`}
    </section>`;
}
