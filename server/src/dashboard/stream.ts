import { EventStream, type H3Event } from "h3";
import type { DashboardHub } from "./hub.js";

/** Open streams at most; a further one is refused rather than letting tabs pile up without bound. */
const MAX_STREAMS = 16;
let open = 0;

/**
 * The live stream of the dashboard: `request` for each logged API request (its summary) and `change` for
 * each event the core emits (type and account), so views refresh without polling.
 */
export function openEventStream(event: H3Event, hub: DashboardHub): Response | EventStream {
  if (open >= MAX_STREAMS) return Response.json({ error: { code: "rate_limited", message: "Too many open dashboard streams." } }, { status: 429 });
  open++;
  const stream = new EventStream(event);
  const send = (name: string, data: unknown) => void stream.push({ event: name, data: JSON.stringify(data) }).catch(() => {});
  const offRequests = hub.requests.subscribe((summary) => send("request", summary));
  const offChanges = hub.onChange((change) => send("change", change));
  const offClose = hub.onClose(() => void stream.close());
  let closed = false;
  stream.onClosed(() => {
    if (closed) return;
    closed = true;
    open--;
    offRequests();
    offChanges();
    offClose();
  });
  void stream.pushComment("connected").catch(() => {});
  return stream;
}
