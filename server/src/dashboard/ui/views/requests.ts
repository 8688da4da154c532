import { useEffect, useRef, useState } from "preact/hooks";
import { dash } from "../api.js";
import { html } from "../html.js";
import { subscribe } from "../live.js";
import { go, toHash, type Route } from "../route.js";
import type { RequestSummary as Summary } from "../../../journal/request-log.js";
import { Exchange } from "./exchange.js";

interface Filter {
  status: string;
  path: string;
  plane: string;
  /** "all" shows the dashboard's own calls too. */
  source: string;
}

const matches = (s: Summary, f: Filter) =>
  (!f.status || (/xx$/.test(f.status) ? String(s.status)[0] === f.status[0] : String(s.status) === f.status)) &&
  (!f.path || s.path.includes(f.path)) &&
  (!f.plane || s.plane === f.plane) &&
  (f.source === "all" || s.source !== "dashboard");

/** Who a request was from, as far as its credentials proved. */
function caller(r: Summary): string {
  const who = r.account_id ?? r.application_id ?? (r.plane === "admin" && r.status < 400 ? "admin" : r.status === 401 ? "unauthenticated" : "-");
  return r.source === "api" ? who : `${who} (${r.source})`;
}

const PAGE = 100;

/** The live request log: filters, the list newest first with older pages on demand, and an exchange opened under its row. */
export function RequestsView({ route }: { route: Route }) {
  const [filter, setFilter] = useState<Filter>({ status: "", path: "", plane: "", source: "" });
  const [rows, setRows] = useState<Summary[]>([]);
  const [total, setTotal] = useState(0);
  const [hidden, setHidden] = useState(0);
  const [next, setNext] = useState<number | null>(null);
  const [open, setOpen] = useState<any>(null);
  const openId = route.id || null;
  const query = (before?: number) => {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v));
    q.set("limit", String(PAGE));
    if (before !== undefined) q.set("before", String(before));
    return `/requests?${q}`;
  };
  useEffect(() => {
    void dash.get(query()).then((a) => {
      if (!a.ok) return;
      setRows(a.json.data);
      setTotal(a.json.total);
      setHidden(a.json.hidden);
      setNext(a.json.next_before);
    });
    return subscribe((type, data) => {
      if (type !== "request") return;
      if (matches(data, filter)) {
        setRows((r) => [data, ...r]);
        setTotal((n) => n + 1);
      } else if (data.source === "dashboard") setHidden((n) => n + 1);
    });
  }, [filter.status, filter.path, filter.plane, filter.source]);
  useEffect(() => {
    if (!openId) return setOpen(null);
    void dash.get(`/requests/${openId}`).then((a) => setOpen(a.ok ? a.json.data : { id: openId, gone: true }));
  }, [openId]);
  const older = async () => {
    if (next === null) return;
    const a = await dash.get(query(next));
    if (!a.ok) return;
    setRows((r) => [...r, ...a.json.data]);
    setNext(a.json.next_before);
  };
  const set = (key: keyof Filter) => (e: Event) => {
    const target = e.target as HTMLInputElement;
    setFilter({ ...filter, [key]: target.type === "checkbox" ? (target.checked ? "all" : "") : target.value });
  };
  // The opened exchange sits under its row; once it has rendered, it is brought into view.
  const detail = useRef<HTMLTableRowElement>(null);
  useEffect(() => detail.current?.scrollIntoView({ block: "nearest" }), [open?.id]);
  const shown = open && !open.gone && !rows.some((r) => r.id === open.id) ? [open as Summary, ...rows] : rows;

  return html`
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Status <select value=${filter.status} onChange=${set("status")}>
        <option value="">any</option><option>2xx</option><option>3xx</option><option>4xx</option><option>5xx</option>
      </select></label>
      <label>Path contains <input value=${filter.path} onInput=${set("path")} /></label>
      <label>Plane <select value=${filter.plane} onChange=${set("plane")}>
        <option value="">any</option><option>account</option><option>app</option><option>admin</option><option>none</option>
      </select></label>
      <label><input type="checkbox" checked=${filter.source === "all"} onChange=${set("source")} /> Show the dashboard's own calls</label>
    </form>
    <p class="hint" aria-live="polite">${total} requests (live)${filter.source !== "all" && hidden > 0 ? `; ${hidden} made by this dashboard hidden` : ""}${rows.length < total ? `; showing the newest ${rows.length}` : ""}</p>
    ${rows.length === 0 && html`<p class="hint">No requests yet${filter.status || filter.path || filter.plane ? " match these filters" : ": call the API (curl, lp, or your app) and they appear here"}.</p>`}
    <table class="stack">
      <caption class="sr-only">API requests, newest first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">ms</th><th scope="col">Plane</th><th scope="col">Caller</th><th scope="col">Request id</th></tr></thead>
      <tbody>
        ${shown.map((r) => [
          html`<tr key=${r.id} class=${`${r.status >= 400 ? "bad" : ""} ${open?.id === r.id ? "selected" : ""}`}>
            <td data-label="Time">${new Date(r.at).toLocaleTimeString()}</td><td data-label="Method">${r.method}</td><td class="mono" data-label="Path"><span>${r.path}</span></td>
            <td data-label="Status"><span class=${`status s${String(r.status)[0]}`}>${r.status}</span></td><td data-label="ms">${r.ms}</td><td data-label="Plane">${r.plane}</td>
            <td data-label="Caller">${caller(r)}</td>
            <td data-label="Request id"><button type="button" class="link" aria-expanded=${open?.id === r.id} onClick=${() => go(toHash("requests", open?.id === r.id ? "" : r.id))}>${r.id}</button></td>
          </tr>`,
          open?.id === r.id &&
            html`<tr key=${`${r.id}-detail`} class="detail" ref=${detail}><td colspan="8"><${Exchange} entry=${open} onClose=${() => go(toHash("requests"))} /></td></tr>`,
        ])}
      </tbody>
    </table>
    ${next !== null && html`<div class="pager"><button type="button" onClick=${older}>Load ${PAGE} older</button></div>`}
    ${open?.gone && html`<${Exchange} entry=${open} onClose=${() => go(toHash("requests"))} />`}
  `;
}
