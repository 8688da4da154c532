import { toDeploymentRow } from "../deployments/deployment-repository.js";
import { toJson } from "./column-types.js";
import type { Format2Record } from "./format-2-records.js";
import type { RowBuild } from "./format-2-row-build.js";
import type { PagesWritten } from "./format-2-page-rows.js";

/**
 * Deployments of the pages written (one still deploying due at its creation; a second in flight for a page
 * left out), the files of each, the sites serving them (with an address known), and checkout posts.
 */
export function addDeploymentRows(build: RowBuild, { pages, deleting }: PagesWritten): void {
  const { byKind, add, leave, once, needAccount } = build;
  const deployments = new Map<string, Format2Record<"deployment">>();
  const inFlight = new Set<string>();
  for (const { key, record: d } of byKind.deployment) {
    if (!pages.has(d.page_id)) {
      leave(key, deleting.has(d.page_id) ? "its page's deletion was under way" : `names page ${d.page_id}, which is not there`);
      continue;
    }
    if (!needAccount(key, d.account_id) || !once("deployments", d.id, key)) continue;
    // One deployment in flight per page (a partial unique index): a second cannot be stored.
    if (d.status === "deploying" && inFlight.has(d.page_id)) {
      leave(key, `page ${d.page_id} has another deployment in flight`);
      continue;
    }
    if (d.status === "deploying") inFlight.add(d.page_id);
    deployments.set(d.id, d);
    add("deployments", {
      ...toDeploymentRow({ ...d, simulate: d.simulate ?? null, step_times: d.step_times ?? {} }),
      due_at: d.status === "deploying" ? d.created_at : null,
      lease_owner: null,
      lease_expires_at: null,
    });
  }

  const filesOf = new Set<string>();
  for (const { key, record: f } of byKind.siteFiles) {
    const deployment = deployments.get(f.deployment_id);
    if (!deployment) {
      leave(key, `names deployment ${f.deployment_id}, which is not there`);
      continue;
    }
    if (!once("site_files", f.deployment_id, key)) continue;
    filesOf.add(f.deployment_id);
    add("site_files", { deployment_id: f.deployment_id, html: f.html, page: toJson(f.page), created_at: deployment.deployed_at ?? deployment.updated_at });
  }

  for (const { key, parts, record: s } of byKind.site) {
    const [accountId, slug] = parts as [string, string];
    const deployment = deployments.get(s.deployment_id);
    const url = s.url ?? deployment?.deployed_url ?? pages.get(s.page_id)?.deployed_url ?? null;
    if (!pages.has(s.page_id) || !deployment || !filesOf.has(s.deployment_id) || url === null) {
      leave(key, !pages.has(s.page_id) ? `names page ${s.page_id}, which is not there` : !deployment ? `names deployment ${s.deployment_id}, which is not there` : !filesOf.has(s.deployment_id) ? `the files of deployment ${s.deployment_id} are not there` : "no address is known for it");
      continue;
    }
    if (needAccount(key, accountId)) add("sites", { account_id: accountId, slug, page_id: s.page_id, deployment_id: s.deployment_id, activated_at: s.activated_at, url });
  }

  for (const { key, record: c } of byKind.checkout) {
    if (needAccount(key, c.account_id) && once("checkouts", c.id, key)) add("checkouts", { id: c.id, account_id: c.account_id, page_id: c.page_id, deployment_id: c.deployment_id, values: toJson(c.values), created_at: c.created_at });
  }
}
