import { useState } from "preact/hooks";
import { call, errorText } from "../api.js";
import { html } from "../html.js";
import type { DashState } from "../app.js";
import type { Outcome } from "./outcome.js";

/** The events one API call causes, the call, and its body to start from (the `lp trigger` fixture's). */
const EVENTS: Record<string, { what: string; fixture: Record<string, unknown> }> = {
  "product.created": {
    what: "creates a product with this body",
    fixture: { title: "Linen Apron", description: "A heavyweight stonewashed linen apron with an adjustable neck strap.", price: 42, original_price: 49, delivery_price: 4.5, product_type: "physical" },
  },
  "product.updated": { what: "changes the newest product with this patch", fixture: { price: 39 } },
};

/**
 * The deliveries of `type` about product `productId` made at or after `since`, on every endpoint of every
 * application: the product's id tells this call's event from an earlier one of the same type.
 */
async function deliveriesSince(state: DashState, type: string, productId: string, since: string): Promise<{ app: string; endpoint: string; url: string; status: string }[]> {
  const out: { app: string; endpoint: string; url: string; status: string }[] = [];
  for (const app of state.apps) {
    const eps = await call("GET", "/v1/developer/webhook-endpoints?per_page=100", { appId: app.application_id });
    for (const ep of eps.ok ? eps.json.data : []) {
      const d = await call("GET", `/v1/developer/webhook-endpoints/${ep.id}/deliveries?per_page=20&event_type=${type}`, { appId: app.application_id });
      for (const x of d.ok ? d.json.data : []) if (x.created_at >= since && x.payload?.data?.id === productId) out.push({ app: app.name, endpoint: ep.id, url: ep.url, status: x.status });
    }
  }
  return out;
}

/** Send an event: choose it, edit the body of the API call that causes it, send, and see which endpoints got it. */
export function EventsView({ state, account }: { state: DashState; account: string }) {
  const [type, setType] = useState("product.created");
  const [body, setBody] = useState(JSON.stringify(EVENTS[type].fixture, null, 2));
  const [message, setMessage] = useState<Outcome | null>(null);
  const [got, setGot] = useState<Awaited<ReturnType<typeof deliveriesSince>> | null>(null);
  const choose = (value: string) => {
    setType(value);
    setBody(JSON.stringify(EVENTS[value].fixture, null, 2));
  };
  async function send(e: Event) {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return setMessage({ text: "The body is not JSON.", bad: true });
    }
    const since = new Date(Date.now() - 1000).toISOString();
    let a;
    if (type === "product.created") a = await call("POST", `/v1/accounts/${account}/products`, { body: parsed });
    else {
      const list = await call("GET", `/v1/accounts/${account}/products?per_page=1`);
      const newest = list.ok ? list.json.data[0] : null;
      if (!newest) return setMessage({ text: `No product on ${account} to update: send product.created first.`, bad: true });
      a = await call("PATCH", `/v1/accounts/${account}/products/${newest.id}`, { body: parsed });
    }
    const productId: string = a.ok ? a.json.data.id : "";
    if (!a.ok) return setMessage({ text: `The API refused the call, so no event: ${errorText(a)}`, bad: true });
    setMessage({ text: `${type} sent (${a.status}); looking for its deliveries...`, bad: false });
    // Fan-out runs in the background: look a few times until the deliveries settle.
    let found: Awaited<ReturnType<typeof deliveriesSince>> = [];
    for (let i = 0; i < 10; i++) {
      found = await deliveriesSince(state, type, productId, since);
      // None yet may mean the fan-out has not run: only a settled, non-empty list ends the wait early.
      if (found.length > 0 && found.every((d) => d.status !== "pending")) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    setGot(found);
    setMessage({ text: `${type} sent; ${found.length} endpoint deliveries.`, bad: false });
  }
  return html`
    <form class="card form" onSubmit=${send} aria-labelledby="send-title">
      <h2 id="send-title">Send an event</h2>
      <p class="hint">The event comes from a real API call on ${account}, as <code>lp trigger</code> does; every endpoint subscribed to it gets it.</p>
      <label>Event <select value=${type} onChange=${(e: Event) => choose((e.target as HTMLSelectElement).value)}>
        ${Object.keys(EVENTS).map((t) => html`<option>${t}</option>`)}
      </select></label>
      <label for="event-body">Body of the call (it ${EVENTS[type].what})</label>
      <textarea id="event-body" class="code" value=${body} onInput=${(e: Event) => setBody((e.target as HTMLTextAreaElement).value)}></textarea>
      <button type="submit">Send ${type}</button>
      ${message && html`<p role=${message.bad ? "alert" : "status"} class=${message.bad ? "error-text" : ""}>${message.text}</p>`}
    </form>
    ${got && (got.length === 0
      ? html`<p class="hint">No endpoint got ${type} (none is subscribed to it, or they are paused).</p>`
      : html`<table class="stack"><caption>Endpoints that got it</caption>
          <thead><tr><th scope="col">Application</th><th scope="col">Endpoint</th><th scope="col">Delivery</th></tr></thead>
          <tbody>${got.map((d) => html`<tr><td data-label="Application">${d.app}</td><td class="mono" data-label="Endpoint"><span>${d.url}</span></td><td data-label="Delivery"><span class=${`badge ${d.status}`}>${d.status}</span></td></tr>`)}</tbody>
        </table>`)}`;
}
