import { call } from "../api.js";

/** A line about what an action did: `bad` ones are announced as alerts and shown in red. */
export interface Outcome {
  text: string;
  bad: boolean;
}

/** How a settled delivery went, from its last attempt: the receiver's status, or the reason it got none. */
export function deliveryOutcome(label: string, d: any): Outcome {
  const last = d.attempts?.[d.attempts.length - 1];
  if (d.status === "succeeded") return { text: `${label}: delivered (HTTP ${last?.status_code} in ${last?.latency_ms} ms).`, bad: false };
  if (d.status === "skipped") return { text: `${label}: skipped (${d.skipped_reason ?? "endpoint not active"}).`, bad: true };
  const why = last ? (last.error ?? `HTTP ${last.status_code}`) : "no attempt";
  return { text: `${label}: refused by the endpoint (${why}).`, bad: true };
}

/**
 * Follows a delivery the server queued (test, retry, custom event) until it settles, reporting each state:
 * the action's outcome is the receiver's answer, not the 202 that queued it. Gives up after `limit` looks.
 */
export async function followDelivery(appId: string, endpointId: string, queued: { id: string; event_type: string }, label: string, report: (o: Outcome) => void, limit = 100): Promise<void> {
  const id = queued.id;
  // The API has no single-delivery read: the newest of its event type are listed, and it is among them.
  const path = `/v1/developer/webhook-endpoints/${endpointId}/deliveries?per_page=100&event_type=${queued.event_type}`;
  for (let i = 0; i < limit; i++) {
    const a = await call("GET", path, { appId });
    const d = a.ok ? a.json.data.find((x: any) => x.id === id) : undefined;
    if (!d) return report({ text: `${label}: could not read delivery ${id} (${a.ok ? "not listed" : (a.json?.error?.message ?? a.status)}).`, bad: true });
    if (d.status !== "pending") return report(deliveryOutcome(label, d));
    report({ text: `${label}: delivery ${id} queued, ${d.attempts.length} attempt(s) so far...`, bad: false });
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  report({ text: `${label}: delivery ${id} is still pending (retries scheduled); see Deliveries.`, bad: false });
}
