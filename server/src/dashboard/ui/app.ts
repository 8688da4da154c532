import { useEffect, useRef, useState } from "preact/hooks";
import { currentSimulate, dash } from "./api.js";
import { html } from "./html.js";
import { useConnection, useLiveTick } from "./live.js";
import { go, toHash, useRoute } from "./route.js";
import { SessionNotice } from "./session-notice.js";
import { AccountsView } from "./views/accounts.js";
import { EventsView } from "./views/events.js";
import { PageDetailView } from "./views/page-detail.js";
import { PagesView } from "./views/pages.js";
import { ProductsView } from "./views/products.js";
import { RequestsView } from "./views/requests.js";
import { SettingsView } from "./views/settings.js";
import { WebhooksView } from "./views/webhooks.js";

/** What the dashboard knows of the server: accounts, applications, fault settings. */
export interface DashState {
  accounts: { account_id: string; environment: string; currency: string; page_quota: number; product_quota: number; media_quota_bytes: number; created_at: string }[];
  apps: { application_id: string; name: string; account_ids: string[]; created_at: string }[];
  faults: { generation_step_ms: number; deployment_step_ms: number; simulate_modes: string[] };
  request_log_capacity: number;
  clock: { now: string; mode: "system" | "manual" };
  storage: { kind: string; fault: { reason: string; since: string; refused: number } | null };
  product_types: string[];
  uploads: { max_files: number; max_bytes: number; types: string[] };
}

/** What each storage fault means for someone at the console. */
const FAULT_TEXT: Record<string, string> = {
  disk_full: "the disk is full",
  read_only: "the file system is read-only",
  permission_denied: "lp may not write to its data dir",
};

const LIVE_LABEL = { connecting: "connecting", open: "live", stopped: "offline", ended: "logged out" } as const;

const VIEWS = [
  ["requests", "Requests"],
  ["accounts", "Accounts"],
  ["products", "Products"],
  ["pages", "Pages"],
  ["webhooks", "Webhooks"],
  ["events", "Send an event"],
  ["settings", "Faults and data"],
] as const;

/** The whole dashboard: header with the account picker, navigation, and the current view. */
export function App() {
  const route = useRoute();
  const { view, id } = route;
  const tick = useLiveTick();
  const connection = useConnection();
  const [simulating, setSimulating] = useState(currentSimulate());
  useEffect(() => {
    const on = () => setSimulating(currentSimulate());
    addEventListener("lp-simulate", on);
    return () => removeEventListener("lp-simulate", on);
  }, []);
  const [state, setState] = useState<DashState | null>(null);
  const [stored, setStored] = useState(() => sessionStorage.getItem("lp-account") ?? "");
  useEffect(() => {
    void dash.get("/state").then((a) => a.ok && setState(a.json.data));
  }, [tick]);
  const accounts = state?.accounts ?? [];
  // The address names the account when it was opened from a link; else the last one chosen in this tab.
  const account = route.params.get("account") ?? stored;
  const current = accounts.some((a) => a.account_id === account) ? account : (accounts.find((a) => a.account_id === "acct_dev")?.account_id ?? accounts[0]?.account_id ?? "");
  const choose = (value: string) => {
    sessionStorage.setItem("lp-account", value);
    setStored(value);
    // An entity of the old account makes no sense under the new one: back to the view's list.
    go(toHash(view === "page" ? "pages" : view, "", { account: value }), true);
  };
  const title = view === "page" ? "Page" : (VIEWS.find(([v]) => v === view)?.[1] ?? "Not found");
  const first = useRef(true);
  useEffect(() => {
    document.title = `${title} - lp dashboard`;
    // After navigating, focus moves to the new view (as a page load would); on the first load it stays at the top.
    if (!first.current) document.getElementById("main")?.focus({ preventScroll: true });
    first.current = false;
  }, [title, id]);

  let body;
  if (!state) body = html`<p>Loading...</p>`;
  else if (view === "requests") body = html`<${RequestsView} route=${route} />`;
  else if (view === "accounts") body = html`<${AccountsView} state=${state} />`;
  else if (view === "products") body = html`<${ProductsView} account=${current} tick=${tick} types=${state.product_types} limits=${state.uploads} openId=${id} />`;
  else if (view === "pages") body = html`<${PagesView} account=${current} tick=${tick} />`;
  else if (view === "page" && id) body = html`<${PageDetailView} account=${current} pageId=${id} tick=${tick} />`;
  else if (view === "webhooks") body = html`<${WebhooksView} state=${state} tick=${tick} route=${route} />`;
  else if (view === "events") body = html`<${EventsView} state=${state} account=${current} />`;
  else if (view === "settings") body = html`<${SettingsView} state=${state} onChange=${setState} />`;
  else body = html`<p>No such view.</p>`;

  return html`
    <a class="skip" href="#main" onClick=${(e: Event) => (e.preventDefault(), document.getElementById("main")?.focus())}>Skip to content</a>
    <header class="top">
      <p class="brand">lp dashboard <span class=${`live ${connection}`} data-live=${connection}>${LIVE_LABEL[connection]}</span>
        ${simulating && html`<a class="simulating" href=${toHash("settings")}>Lp-Simulate: ${simulating}</a>`}
        ${state?.clock.mode === "manual" && html`<span class="manual-clock" data-clock=${state.clock.now} title="lp serve --clock manual: it moves only with lp clock advance">Manual clock: <time datetime=${state.clock.now}>${state.clock.now.replace("T", " ").replace(/\.\d+Z$/, " UTC")}</time></span>`}</p>
      <label>Account
        <select value=${current} onChange=${(e: Event) => choose((e.target as HTMLSelectElement).value)}>
          ${accounts.map((a) => html`<option value=${a.account_id}>${a.account_id}</option>`)}
        </select>
      </label>
    </header>
    <nav aria-label="Views">
      <ul>
        ${VIEWS.map(([v, label]) => html`<li><a href=${toHash(v, "", { account: route.params.get("account") ?? undefined })} aria-current=${view === v || (view === "page" && v === "pages") ? "page" : undefined}>${label}</a></li>`)}
      </ul>
    </nav>
    <main id="main" tabindex="-1">
      ${state?.storage.fault &&
      html`<p class="degraded" role="status">
        Writes refused: ${FAULT_TEXT[state.storage.fault.reason] ?? state.storage.fault.reason} (${state.storage.fault.reason}, since ${state.storage.fault.since},
        ${state.storage.fault.refused} refused). Reads still work; writes resume by themselves once there is room.
      </p>`}
      <${SessionNotice} connection=${connection} />
      <h1>${title}</h1>
      ${body}
    </main>
  `;
}
