import { useEffect, useState } from "preact/hooks";

type Listener = (type: "request" | "change", data: any) => void;
const listeners = new Set<Listener>();
let source: EventSource | null = null;

function connect(): void {
  if (source) return;
  source = new EventSource("/_dashboard/api/events");
  source.addEventListener("request", (e) => emit("request", JSON.parse((e as MessageEvent).data)));
  source.addEventListener("change", (e) => emit("change", JSON.parse((e as MessageEvent).data)));
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
