import { html, when } from "../html.js";
import type { DashState } from "../app.js";

/** Accounts and the applications installed on them. */
export function AccountsView({ state }: { state: DashState }) {
  return html`
    <table>
      <caption>Accounts</caption>
      <thead><tr><th scope="col">Account</th><th scope="col">Environment</th><th scope="col">Currency</th><th scope="col">Page quota</th><th scope="col">Product quota</th><th scope="col">Media quota</th><th scope="col">Created</th></tr></thead>
      <tbody>${state.accounts.map(
        (a) =>
          html`<tr><td class="mono">${a.account_id}</td><td>${a.environment}</td><td>${a.currency}</td><td>${a.page_quota}</td><td>${a.product_quota}</td><td title=${`${a.media_quota_bytes} bytes`}>${toMiB(a.media_quota_bytes)}</td><td>${when(a.created_at)}</td></tr>`,
      )}</tbody>
    </table>
    <table>
      <caption>Applications</caption>
      <thead><tr><th scope="col">Application</th><th scope="col">Name</th><th scope="col">Installed on</th><th scope="col">Created</th></tr></thead>
      <tbody>${state.apps.map(
        (a) => html`<tr><td class="mono">${a.application_id}</td><td>${a.name}</td><td>${a.account_ids.join(", ")}</td><td>${when(a.created_at)}</td></tr>`,
      )}</tbody>
    </table>`;
}

/** A byte count as MiB, the unit quotas are usually set in (exact bytes are in the cell's title). */
function toMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}
