import { useEffect, useState } from "preact/hooks";

type Listener = (type: "request" | "change", data: any) => void;
/**
 * Where the tab stands with the server: the stream is `connecting` or `open`; the server `stopped` (stopping,
 * restarting, or out of reach); or the session `ended` (restart, expiry, logout elsewhere).
 */
export type Connection = "connecting" | "open" | "stopped" | "ended";

const listeners = new Set<Listener>();
const watchers = new Set<(c: Connection) => void>();
let source: EventSource | null = null;
let connection: Connection = "connecting";
let probe: ReturnType<typeof setTimeout> | undefined;
/** How often a stopped server is asked again whether it is back. */
const PROBE_MS = 1500;

function setConnection(next: Connection): void {
  if (next === connection) return;
  connection = next;
  for (const watcher of watchers) watcher(next);
}

function connect(): void {
  if (source || connection === "ended") return;
  source = new EventSource("/_dashboard/api/events");
  source.addEventListener("hello", () => {
    // What changed before the stream was open went unannounced: at the first connect, anything between a view's
    // first load and now (an upload made at once); back after a stop, everything. So every view reloads.
    emit("change", { type: connection === "stopped" ? "reconnected" : "connected", account_id: "" });
    setConnection("open");
  });
  source.addEventListener("stopping", () => lost());
  source.addEventListener("request", (e) => emit("request", JSON.parse((e as MessageEvent).data)));
  source.addEventListener("change", (e) => emit("change", JSON.parse((e as MessageEvent).data)));
  // An answer that is not a stream (401 without a session, 503 while stopping) closes the source for good.
  source.addEventListener("error", () => lost());
}

/** The stream ended or failed: stop the browser's own retries and ask the server what happened. */
function lost(): void {
  source?.close();
  source = null;
  if (connection === "ended") return;
  setConnection("stopped");
  clearTimeout(probe);
  probe = setTimeout(check, PROBE_MS);
}

/** Asks a cheap authenticated URL: 200 means back (reconnect), 401 means the session is gone, nothing means still down. */
async function check(): Promise<void> {
  try {
    const res = await fetch("/_dashboard/api/session", { credentials: "same-origin", cache: "no-store" });
    if (res.status === 401) return sessionEnded();
    if (res.ok) return connect();
  } catch {
    // Still down: ask again below.
  }
  probe = setTimeout(check, PROBE_MS);
}

/** Called when any dashboard answer says the session is gone: views keep what they show, the tab says to log in again. */
export function sessionEnded(): void {
  source?.close();
  source = null;
  clearTimeout(probe);
  setConnection("ended");
}

/** Called when a call got no answer at all: the server may be stopping. */
export function serverUnreachable(): void {
  if (connection === "open" || connection === "connecting") lost();
}

function emit(type: "request" | "change", data: any): void {
  for (const listener of listeners) listener(type, data);
}

/** Listens to the server's live stream (one EventSource per tab, shared). */
export function subscribe(listener: Listener): () => void {
  connect();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The tab's {@link Connection}, re-rendering on change. */
export function useConnection(): Connection {
  const [value, setValue] = useState(connection);
  useEffect(() => {
    watchers.add(setValue);
    setValue(connection);
    return () => void watchers.delete(setValue);
  }, []);
  return value;
}

/**
 * A number that grows whenever the server reports a change (a core event, or an API request that was not
 * a read), debounced; views put it in their effect dependencies to reload without polling.
 */
export function useLiveTick(): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = subscribe((type, data) => {
      if (type === "request" && (data.method === "GET" || data.method === "HEAD")) return;
      clearTimeout(timer);
      timer = setTimeout(() => setTick((t) => t + 1), 150);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  return tick;
}
