import { EventStream, type H3Event } from "h3";
import type { DashboardHub } from "./hub.js";

/** Open streams at most; a further one is refused rather than letting tabs pile up without bound. */
const MAX_STREAMS = 16;
/** How long the browser waits before reconnecting a stream that ended (EventSource's `retry`). */
const RETRY_MS = 2000;
let open = 0;

/**
 * The live stream of the dashboard: `request` for each logged API request (its summary) and `change` for
 * each event the core emits (type and account), so views refresh without polling. When the server starts
 * to stop, each stream gets `stopping` and ends at once; the response says `Connection: close`, so its
 * socket ends with it and the browser cannot bring a new stream in on it while the server drains.
 */
export function openEventStream(event: H3Event, hub: DashboardHub): Response | EventStream {
  const refuse = (status: number, code: string, message: string) =>
    Response.json({ error: { code, message } }, { status, headers: { connection: "close", "retry-after": "2" } });
  if (hub.closed) return refuse(503, "unavailable", "The server is stopping.");
  if (open >= MAX_STREAMS) return refuse(429, "rate_limited", "Too many open dashboard streams.");
  open++;
  const stream = new EventStream(event);
  stream.headers.set("connection", "close");
  const send = (name: string, data: unknown) => void stream.push({ event: name, data: JSON.stringify(data) }).catch(() => {});
  const offRequests = hub.requests.subscribe((summary) => send("request", summary));
  const offChanges = hub.onChange((change) => send("change", change));
  const offClose = hub.onClose(() => {
    send("stopping", {});
    void stream.close();
  });
  let closed = false;
  stream.onClosed(() => {
    if (closed) return;
    closed = true;
    open--;
    offRequests();
    offChanges();
    offClose();
  });
  void stream.push({ event: "hello", data: "{}", retry: RETRY_MS }).catch(() => {});
  return stream;
}
