import { describe, expect, it } from "vitest";
import { type DeploymentRecord, type PageRecord } from "../index.js";
import { useRestarts } from "../testing/restarts.js";

/**
 * A successful deployment writes the site pointer, the deployment record, the page (`deployed_url`,
 * `published`), the event, then drops the claim and its journal entry. The crash loop once killed
 * `lp serve` between the deployment record and the page: the deployment read `succeeded` and the page had
 * no `deployed_url`, for ever. Each state a kill can leave is written here by hand from a finished
 * deployment, and a core is opened on it as after a restart.
 */
describe("a deployment settle cut short by a crash", () => {
  const { folder, open, shut } = useRestarts();

  /** A folder with a page deployed once; the records as they stood, and the keys involved. */
  async function deployed() {
    const dir = folder("lp-settle-");
    const core = await open(dir);
    const { job_id } = await core.pages.create("acct_dev", { product: { title: "Settled", description: "A page", price: 5, product_type: "service" } }, null);
    await core.onIdle();
    const pageId = (await core.pages.getJob("acct_dev", job_id)).page_id!;
    const { deployment_id } = await core.deployments.start("acct_dev", pageId, null);
    await core.onIdle();
    const data = core.stores.data;
    const keys = {
      page: `acct:acct_dev:pages:${pageId}`,
      deployment: `acct:acct_dev:deployments:${pageId}:${deployment_id}`,
      claim: `acct:acct_dev:activedeploy:${pageId}`,
      journal: `inflight:deployments:acct_dev:${pageId}:${deployment_id}`,
    };
    const page = (await data.getItem<PageRecord>(keys.page))!;
    const deployment = (await data.getItem<DeploymentRecord>(keys.deployment))!;
    expect(page.deployed_url).toBe(deployment.deployed_url);
    await shut(core);
    return { dir, pageId, deploymentId: deployment_id, page, deployment, keys, data };
  }

  it("killed after the deployment was recorded succeeded, before the page: the restart sets the page's deployed_url", async () => {
    const { dir, pageId, page, deployment, keys, data } = await deployed();
    await data.setItem(keys.page, { ...page, status: "draft", deployed_url: null });
    await data.setItem(keys.journal, { at: deployment.created_at });
    await data.setItem(keys.claim, { deployment_id: deployment.id });

    const core = await open(dir);
    expect(await core.pages.get("acct_dev", pageId)).toMatchObject({ status: "published", deployed_url: deployment.deployed_url });
    expect(await core.stores.data.getItem(keys.claim)).toBeNull();
    expect(await core.stores.data.getItem(keys.journal)).toBeNull();
  });

  it("killed after the site pointer, before the deployment record: the restart rolls it forward to succeeded", async () => {
    const { dir, pageId, deploymentId, page, deployment, keys, data } = await deployed();
    await data.setItem(keys.page, { ...page, status: "draft", deployed_url: null });
    await data.setItem(keys.deployment, { ...deployment, status: "deploying", deploy_step: "activating", deployed_url: null, deployed_at: null });
    await data.setItem(keys.journal, { at: deployment.created_at });
    await data.setItem(keys.claim, { deployment_id: deploymentId });

    const core = await open(dir);
    const after = await core.deployments.get("acct_dev", pageId, deploymentId);
    expect(after).toMatchObject({ status: "succeeded", deploy_step: null, deployed_url: deployment.deployed_url, error_code: null });
    expect((await core.pages.get("acct_dev", pageId)).deployed_url).toBe(deployment.deployed_url);
    const site = await core.sites.find("acct_dev", page.slug);
    expect(site?.html).toContain("<html");
  });

  it("killed at the activating step before the pointer moved: the restart fails it with worker_terminated", async () => {
    const { dir, pageId, deploymentId, page, deployment, keys, data } = await deployed();
    await data.removeItem(`sites:acct_dev:${page.slug}`);
    await data.setItem(keys.deployment, { ...deployment, status: "deploying", deploy_step: "activating", deployed_url: null, deployed_at: null });
    await data.setItem(keys.journal, { at: deployment.created_at });

    const core = await open(dir);
    expect(await core.deployments.get("acct_dev", pageId, deploymentId)).toMatchObject({ status: "failed", error_code: "worker_terminated", deploy_step: "activating" });
  });
});
