import { useState } from "preact/hooks";
import { dash, errorText } from "../api.js";
import { html, when } from "../html.js";
import { go, toHash } from "../route.js";

/** Headers a copied command leaves out: the shell's curl sets its own, and the credentials come from the environment. */
const SKIPPED = new Set(["host", "content-length", "connection", "accept-encoding", "user-agent", "authorization", "cookie", "x-request-id"]);
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The credential line of a copied command, by plane: the values stay in the shell (`lp serve --print-env`). */
function credential(plane: string): string[] {
  if (plane === "app") return ["-u", '"$LP_APP_ID:$LP_APP_SECRET"'];
  if (plane === "admin") return ["-H", '"Authorization: Bearer $LP_ADMIN_KEY"'];
  if (plane === "account") return ["-H", '"Authorization: Bearer $LP_TOKEN"'];
  return [];
}

/** A logged request as a curl command, with credentials as environment variables (never the logged values). */
export function toCurl(entry: any, origin = location.origin): string {
  const parts = ["curl", "-X", entry.method, quote(`${origin}${entry.path}`), ...credential(entry.plane)];
  for (const [key, value] of Object.entries(entry.request.headers as Record<string, string>)) {
    if (!SKIPPED.has(key) && value !== "[redacted]") parts.push("-H", quote(`${key}: ${value}`));
  }
  if (entry.request.body) parts.push("--data-raw", quote(entry.request.body));
  return parts.join(" ");
}

/** One exchange of the log, opened under its row: headers and bodies, copy as curl, and replay. */
export function Exchange({ entry, onClose }: { entry: any; onClose: () => void }) {
  const [message, setMessage] = useState<{ text: string; bad: boolean } | null>(null);
  if (entry.gone) return html`<section class="panel" aria-label="Request"><p>${entry.id} has left the log (it keeps the last requests only).</p></section>`;
  const part = (title: string, m: any) => html`
    <h3>${title}</h3>
    <pre class="mono">${Object.entries(m.headers).map(([k, v]) => `${k}: ${v}`).join("\n")}</pre>
    ${m.body ? html`<pre class="mono body" tabindex="0">${m.body}${m.truncated ? "\n[truncated]" : ""}</pre>` : html`<p class="hint">No body.</p>`}`;
  async function copy() {
    try {
      await navigator.clipboard.writeText(toCurl(entry));
      setMessage({ text: "Copied as curl; it reads the credentials from LP_TOKEN, LP_APP_ID/LP_APP_SECRET or LP_ADMIN_KEY (lp serve --print-env).", bad: false });
    } catch {
      setMessage({ text: "The browser refused the clipboard; the command is below.", bad: true });
    }
  }
  async function replay() {
    const a = await dash.post(`/requests/${entry.id}/replay`, {});
    if (!a.ok) return setMessage({ text: `Not replayed: ${errorText(a)}`, bad: true });
    go(toHash("requests", a.json.data.request_id));
  }
  return html`
    <section class="panel" aria-labelledby="exchange-title">
      <h2 id="exchange-title" class="wrap">${entry.method} ${entry.path} → ${entry.status}</h2>
      <p>${entry.id}, ${when(entry.at)}, ${entry.ms} ms, plane ${entry.plane}${entry.source !== "api" ? `, sent by the ${entry.source === "replay" ? "dashboard (replay)" : "dashboard"}` : ""}</p>
      <button type="button" onClick=${copy}>Copy as curl</button>
      <button type="button" onClick=${replay}>Replay</button>
      <button type="button" onClick=${onClose}>Close</button>
      ${message && html`<p role=${message.bad ? "alert" : "status"} class=${message.bad ? "error-text" : ""}>${message.text}</p>`}
      <details><summary>curl command</summary><pre class="mono">${toCurl(entry)}</pre></details>
      <div>${part("Request", entry.request)}</div>
      <div>${part("Response", entry.response)}</div>
    </section>`;
}
