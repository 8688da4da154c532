import { useState } from "preact/hooks";
import { call, currentSimulate, dash, errorText, setSimulate } from "../api.js";
import { html } from "../html.js";
import type { DashState } from "../app.js";

/** Fault injection (server delays, `Lp-Simulate` for the dashboard's page and deploy calls) and data: reset, export, import. */
export function SettingsView({ state, onChange }: { state: DashState; onChange: (s: DashState) => void }) {
  const [message, setMessage] = useState("");
  const [mode, setMode] = useState(currentSimulate());

  async function saveDelays(e: Event) {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const a = await dash.post("/faults", { generation_step_ms: Number(f.get("gen")), deployment_step_ms: Number(f.get("dep")) });
    setMessage(a.ok ? "Delays saved." : errorText(a));
    if (a.ok) onChange(a.json.data);
  }
  async function reset() {
    if (!confirm("Delete all data on this server? The dev credentials are put back.")) return;
    const a = await call("POST", "/_admin/reset", { body: {} });
    setMessage(a.ok ? "Data reset." : errorText(a));
  }
  async function exportData() {
    const a = await call("GET", "/_admin/export");
    if (!a.ok) return setMessage(errorText(a));
    const url = URL.createObjectURL(new Blob([JSON.stringify(a.json)], { type: "application/json" }));
    const link = Object.assign(document.createElement("a"), { href: url, download: "lp-export.json" });
    link.click();
    URL.revokeObjectURL(url);
    setMessage("Export downloaded.");
  }
  async function importData(e: Event) {
    e.preventDefault();
    const file = (new FormData(e.target as HTMLFormElement).get("file") as File | null) ?? null;
    if (!file || file.size === 0) return setMessage("Choose an export file first.");
    let doc: unknown;
    try {
      doc = JSON.parse(await file.text());
    } catch {
      return setMessage("That file is not JSON.");
    }
    const a = await call("POST", "/_admin/import", { body: doc });
    setMessage(a.ok ? "Data imported." : errorText(a));
  }

  return html`
    <p role="status">${message}</p>
    <form class="card form" onSubmit=${saveDelays} aria-labelledby="delays-title">
      <h2 id="delays-title">Server delays</h2>
      <label>Pause per generation step (ms) <input name="gen" type="number" min="0" max="60000" value=${state.faults.generation_step_ms} /></label>
      <label>Pause per deployment step (ms) <input name="dep" type="number" min="0" max="60000" value=${state.faults.deployment_step_ms} /></label>
      <button type="submit">Save delays</button>
    </form>
    <section class="card form" aria-labelledby="simulate-title">
      <h2 id="simulate-title">Lp-Simulate</h2>
      <p class="hint">Sent with the page generations and deployments this dashboard starts.</p>
      <label>Mode <select value=${mode} onChange=${(e: Event) => {
        const value = (e.target as HTMLSelectElement).value;
        setSimulate(value);
        setMode(value);
      }}>
        <option value="">none</option>
        ${state.faults.simulate_modes.map((m) => html`<option>${m}</option>`)}
      </select></label>
    </section>
    <section class="card form" aria-labelledby="data-title">
      <h2 id="data-title">Data</h2>
      <button type="button" onClick=${exportData}>Export</button>
      <button type="button" class="danger" onClick=${reset}>Reset all data</button>
      <form onSubmit=${importData}>
        <label>Import file <input type="file" name="file" accept="application/json,.json" /></label>
        <button type="submit">Import</button>
      </form>
    </section>`;
}
