import { useState } from "preact/hooks";
import { EVENT_DESCRIPTIONS, EVENT_TYPES, type EventType } from "@lp/contract/events";
import trigger from "../../../../../fixtures/trigger.json";
import { call, dash } from "../api.js";
import { html } from "../html.js";
import type { DashState } from "../app.js";
import { sectionsOf, TRIGGER_SCENARIOS } from "../../trigger-scenarios.js";
import type { Outcome } from "./outcome.js";

/** One endpoint subscribed to the event, and its delivery of this run (null while none is listed yet). */
interface Got {
  app: string;
  url: string;
  delivery: { id: string; status: string; attempts: { outcome: string; status_code: number | null; error: string | null }[] } | null;
}

const isUrl = (s: unknown) => typeof s === "string" && /^https?:\/\//.test(s);

/**
 * The `lp trigger` fixture's sections that the event's calls read. The fixture's product images are files
 * beside it, which a browser cannot send from here: they are left out (upload images from a product's editor).
 */
export function fixtureFor(type: EventType): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const section of sectionsOf(TRIGGER_SCENARIOS[type])) {
    const value = { ...(trigger as Record<string, Record<string, unknown>>)[section] };
    if (section === "product" && Array.isArray(value.images)) {
      const urls = value.images.filter(isUrl);
      if (urls.length) value.images = urls;
      else delete value.images;
    }
    out[section] = value;
  }
  return out;
}

/** The endpoints of every application subscribed to `type`, each with this run's delivery (found by `match`). */
async function deliveriesOf(state: DashState, type: string, match: { field: string; value: string }): Promise<Got[]> {
  const out: Got[] = [];
  for (const app of state.apps) {
    const eps = await call("GET", "/v1/developer/webhook-endpoints?per_page=100", { appId: app.application_id });
    for (const ep of eps.ok ? eps.json.data : []) {
      if (!ep.events.includes(type)) continue;
      const d = await call("GET", `/v1/developer/webhook-endpoints/${ep.id}/deliveries?per_page=50&event_type=${type}`, { appId: app.application_id });
      const delivery = (d.ok ? d.json.data : []).find((x: any) => x.payload?.data?.[match.field] === match.value) ?? null;
      out.push({ app: app.name, url: ep.url, delivery });
    }
  }
  return out;
}

/** How a delivery went, from its last attempt. */
function outcomeOf(g: Got): string {
  if (!g.delivery) return "not delivered (paused, or not yet queued)";
  const last = g.delivery.attempts[g.delivery.attempts.length - 1];
  if (!last) return "queued";
  return `${last.outcome}${last.status_code ? ` (HTTP ${last.status_code})` : ""}${last.error ? `: ${last.error}` : ""}; ${g.delivery.attempts.length} attempt(s)`;
}

/** Send an event: choose it, edit its `lp trigger` fixture, send, and see which endpoints got it and how each delivery went. */
export function EventsView({ state, account }: { state: DashState; account: string }) {
  const [type, setType] = useState<EventType>("product.created");
  const [body, setBody] = useState(JSON.stringify(fixtureFor(type), null, 2));
  const [message, setMessage] = useState<Outcome | null>(null);
  const [got, setGot] = useState<Got[] | null>(null);
  const [busy, setBusy] = useState(false);
  const choose = (value: EventType) => {
    setType(value);
    setBody(JSON.stringify(fixtureFor(value), null, 2));
    setMessage(null);
    setGot(null);
  };
  async function send(e: Event) {
    e.preventDefault();
    let fixture: unknown;
    try {
      fixture = JSON.parse(body);
    } catch (error) {
      return setMessage({ text: `The fixture is not JSON (${(error as Error).message}); nothing was sent.`, bad: true });
    }
    setGot(null);
    setBusy(true);
    setMessage({ text: `Sending ${type}: ${TRIGGER_SCENARIOS[type].summary}...`, bad: false });
    const a = await dash.post("/trigger", { event: type, account_id: account, fixture });
    if (!a.ok) {
      setBusy(false);
      const err = a.json?.error ?? {};
      const issues = (err.details?.issues ?? []).slice(0, 3).map((i: any) => `${i.path}: ${i.message}`).join("; ");
      return setMessage({ text: `${err.step ? `The API refused the ${err.step} step` : "Not sent"} (HTTP ${a.status}): ${err.message ?? "no answer"}${issues ? ` (${issues})` : ""}. ${type} was not sent.`, bad: true });
    }
    setMessage({ text: `${type} caused (${a.json.data.steps.length} calls); looking for its deliveries...`, bad: false });
    // Fan-out and attempts run in the background: look again until every delivery has settled, or give up.
    let found: Got[] = [];
    for (let i = 0; i < 40; i++) {
      found = await deliveriesOf(state, type, a.json.data.match);
      setGot(found);
      if (found.every((g) => g.delivery && g.delivery.status !== "pending")) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    setBusy(false);
    const delivered = found.filter((g) => g.delivery?.status === "succeeded").length;
    setMessage({ text: `${type} sent: ${found.length} endpoint(s) subscribed, ${delivered} delivered.`, bad: false });
  }
  return html`
    <form class="card form" onSubmit=${send} aria-labelledby="send-title">
      <h2 id="send-title">Send an event</h2>
      <p class="hint">The event comes from real API calls on ${account}, as <code>lp trigger</code> makes them, so every endpoint subscribed to it gets it. The calls' earlier steps send their own events too.</p>
      <label for="event-type">Event</label>
      <select id="event-type" value=${type} onChange=${(e: Event) => choose((e.target as HTMLSelectElement).value as EventType)}>
        ${EVENT_TYPES.map((t) => html`<option>${t}</option>`)}
      </select>
      <p class="small">${EVENT_DESCRIPTIONS[type]} The console ${TRIGGER_SCENARIOS[type].summary}.</p>
      <label for="event-body">Fixture (the <code>lp trigger</code> fixture's sections this event reads)</label>
      <textarea id="event-body" class="code" rows="12" value=${body} onInput=${(e: Event) => setBody((e.target as HTMLTextAreaElement).value)}></textarea>
      <button type="submit" disabled=${busy}>Send ${type}</button>
      <button type="button" onClick=${() => choose(type)}>Reset the fixture</button>
      ${message && html`<p role=${message.bad ? "alert" : "status"} class=${message.bad ? "error-text" : ""}>${message.text}</p>`}
    </form>
    ${got && (got.length === 0
      ? html`<p class="hint">No endpoint is subscribed to ${type}.</p>`
      : html`<table class="stack"><caption>Endpoints subscribed to ${type}</caption>
          <thead><tr><th scope="col">Application</th><th scope="col">Endpoint</th><th scope="col">Delivery</th><th scope="col">Outcome</th></tr></thead>
          <tbody>${got.map((g) => html`<tr data-status=${g.delivery?.status ?? "none"}><td data-label="Application">${g.app}</td><td class="mono" data-label="Endpoint"><span>${g.url}</span></td>
            <td data-label="Delivery"><span class=${`badge ${g.delivery?.status ?? ""}`}>${g.delivery?.status ?? "none"}</span></td><td data-label="Outcome"><span>${outcomeOf(g)}</span></td></tr>`)}</tbody>
        </table>`)}`;
}
