import { html, when } from "../html.js";
import type { DashState } from "../app.js";
import { toHash } from "../route.js";

/** Accounts and the applications installed on them. */
export function AccountsView({ state }: { state: DashState }) {
  return html`
    <table class="stack">
      <caption>Accounts</caption>
      <thead><tr><th scope="col">Account</th><th scope="col">Environment</th><th scope="col">Currency</th><th scope="col">Page quota</th><th scope="col">Product quota</th><th scope="col">Media quota</th><th scope="col">Created</th></tr></thead>
      <tbody>${state.accounts.map(
        (a) => html`<tr><td class="mono" data-label="Account"><a href=${toHash("products", "", { account: a.account_id })}>${a.account_id}</a></td><td data-label="Environment">${a.environment}</td><td data-label="Currency">${a.currency}</td><td data-label="Page quota">${a.page_quota}</td><td data-label="Product quota">${a.product_quota}</td><td data-label="Media quota" title=${`${a.media_quota_bytes} bytes`}>${toMiB(a.media_quota_bytes)}</td><td data-label="Created">${when(a.created_at)}</td></tr>`,
      )}</tbody>
    </table>
    <table class="stack">
      <caption>Applications</caption>
      <thead><tr><th scope="col">Application</th><th scope="col">Name</th><th scope="col">Installed on</th><th scope="col">Created</th></tr></thead>
      <tbody>${state.apps.map(
        (a) => html`<tr><td class="mono" data-label="Application"><a href=${toHash("webhooks", "", { app: a.application_id })}>${a.application_id}</a></td><td data-label="Name">${a.name}</td><td data-label="Installed on" class="wrap">${a.account_ids.join(", ")}</td><td data-label="Created">${when(a.created_at)}</td></tr>`,
      )}</tbody>
    </table>`;
}

/** A byte count as MiB, the unit quotas are usually set in (exact bytes are in the cell's title). */
function toMiB(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}
