import { useEffect, useState } from "preact/hooks";
import { dash } from "../api.js";
import { html, when } from "../html.js";
import { subscribe } from "../live.js";
import type { RequestSummary as Summary } from "../../request-log.js";

const matches = (s: Summary, f: { status: string; path: string; plane: string }) =>
  (!f.status || (/xx$/.test(f.status) ? String(s.status)[0] === f.status[0] : String(s.status) === f.status)) &&
  (!f.path || s.path.includes(f.path)) &&
  (!f.plane || s.plane === f.plane);

/** The live request log: filters, the list (newest first), and one exchange opened below it. */
export function RequestsView() {
  const [filter, setFilter] = useState({ status: "", path: "", plane: "" });
  const [rows, setRows] = useState<Summary[]>([]);
  const [open, setOpen] = useState<any>(null);
  useEffect(() => {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v));
    void dash.get(`/requests?${q}`).then((a) => a.ok && setRows(a.json.data));
    return subscribe((type, data) => {
      if (type === "request" && matches(data, filter)) setRows((r) => [data, ...r].slice(0, 500));
    });
  }, [filter.status, filter.path, filter.plane]);
  const set = (key: string) => (e: Event) => setFilter({ ...filter, [key]: (e.target as HTMLInputElement).value });
  const show = async (id: string) => {
    const a = await dash.get(`/requests/${id}`);
    setOpen(a.ok ? a.json.data : { id, gone: true });
  };

  return html`
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Status <select value=${filter.status} onChange=${set("status")}>
        <option value="">any</option><option>2xx</option><option>3xx</option><option>4xx</option><option>5xx</option>
      </select></label>
      <label>Path contains <input value=${filter.path} onInput=${set("path")} /></label>
      <label>Plane <select value=${filter.plane} onChange=${set("plane")}>
        <option value="">any</option><option>account</option><option>app</option><option>admin</option><option>none</option>
      </select></label>
    </form>
    <p class="hint" aria-live="polite">${rows.length} requests (live)</p>
    ${open && html`<${Exchange} entry=${open} onClose=${() => setOpen(null)} />`}
    <table>
      <caption class="sr-only">API requests, newest first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">ms</th><th scope="col">Plane</th><th scope="col">Caller</th><th scope="col">Request id</th></tr></thead>
      <tbody>
        ${rows.slice(0, 200).map(
          (r) => html`<tr class=${r.status >= 400 ? "bad" : ""}>
            <td>${new Date(r.at).toLocaleTimeString()}</td><td>${r.method}</td><td class="mono">${r.path}</td>
            <td><span class=${`status s${String(r.status)[0]}`}>${r.status}</span></td><td>${r.ms}</td><td>${r.plane}</td>
            <td>${r.account_id ?? r.application_id ?? "-"}${r.source === "dashboard" ? " (dashboard)" : ""}</td>
            <td><button type="button" class="link" onClick=${() => show(r.id)}>${r.id}</button></td>
          </tr>`,
        )}
      </tbody>
    </table>
  `;
}

function Exchange({ entry, onClose }: { entry: any; onClose: () => void }) {
  if (entry.gone) return html`<section class="panel" aria-label="Request"><p>${entry.id} has left the log.</p></section>`;
  const message = (title: string, m: any) => html`
    <h3>${title}</h3>
    <pre class="mono">${Object.entries(m.headers).map(([k, v]) => `${k}: ${v}`).join("\n")}</pre>
    ${m.body ? html`<pre class="mono body" tabindex="0">${m.body}${m.truncated ? "\n[truncated]" : ""}</pre>` : html`<p class="hint">No body.</p>`}`;
  return html`
    <section class="panel" aria-labelledby="exchange-title">
      <h2 id="exchange-title">${entry.method} ${entry.path} → ${entry.status}</h2>
      <p>${entry.id}, ${when(entry.at)}, ${entry.ms} ms, plane ${entry.plane}</p>
      <button type="button" onClick=${onClose}>Close</button>
      <div class="two">${message("Request", entry.request)}</div>
      <div class="two">${message("Response", entry.response)}</div>
    </section>`;
}
