import { describe, expect, it } from "vitest";
import { useRestarts } from "../testing/restarts.js";

/**
 * A deployment start writes three records (in-flight marker, the page's claim, the deployment) and a
 * settle writes the deployment, then drops the claim and the marker. The crash loop (test/crash) once
 * killed `lp serve` between the claim and the deployment: the next start kept the claim, and every later
 * deployment of that page was a 409 naming a deployment that did not exist. Here each state a kill can
 * leave between those writes is written by hand, and a core is opened on it as after a restart.
 */
describe("a deployment claim left by a crash", () => {
  const { folder, open, shut } = useRestarts();

  /** A folder holding one generated page; returns it with the page id. */
  async function withPage() {
    const dir = folder("lp-claim-");
    const core = await open(dir);
    const { job_id } = await core.pages.create("acct_dev", { product: { title: "Claimed", description: "A page", price: 5, product_type: "service" } }, null);
    await core.onIdle();
    const pageId = (await core.pages.getJob("acct_dev", job_id)).page_id!;
    await shut(core);
    return { dir, pageId, data: core.stores.data };
  }

  const ghost = "0b6c1a8e-6a4c-4c1e-9d0f-3f1f5a8b2c77";
  const claimKey = (pageId: string) => `acct:acct_dev:activedeploy:${pageId}`;

  it("killed after the claim, before the deployment record: the restart releases the claim", async () => {
    const { dir, pageId, data } = await withPage();
    await data.setItem(`inflight:deployments:acct_dev:${pageId}:${ghost}`, { at: "2026-05-01T00:00:00.000Z" });
    await data.setItem(claimKey(pageId), { deployment_id: ghost });

    const core = await open(dir);
    expect(await core.stores.data.getItem(claimKey(pageId))).toBeNull();
    const started = await core.deployments.start("acct_dev", pageId, null);
    await core.onIdle();
    expect((await core.deployments.get("acct_dev", pageId, started.deployment_id)).status).toBe("succeeded");
  });

  it("killed after settling, before the claim was dropped: the restart releases the claim", async () => {
    const { dir, pageId } = await withPage();
    const first = await open(dir);
    const done = await first.deployments.start("acct_dev", pageId, null);
    await first.onIdle();
    // Put back the two writes the settle makes after the record.
    await first.stores.data.setItem(`inflight:deployments:acct_dev:${pageId}:${done.deployment_id}`, { at: "2026-05-01T00:00:00.000Z" });
    await first.stores.data.setItem(claimKey(pageId), { deployment_id: done.deployment_id });
    await shut(first);

    const core = await open(dir);
    expect(await core.stores.data.getItem(claimKey(pageId))).toBeNull();
    await expect(core.deployments.start("acct_dev", pageId, null)).resolves.toMatchObject({ deployed_url: null });
  });

  it("a claim naming no running deployment (an older data dir) does not block a start", async () => {
    const { dir, pageId } = await withPage();
    const core = await open(dir);
    await core.stores.data.setItem(claimKey(pageId), { deployment_id: ghost });
    const started = await core.deployments.start("acct_dev", pageId, null);
    expect(started.deployment_id).not.toBe(ghost);
    await core.onIdle();
    expect((await core.deployments.get("acct_dev", pageId, started.deployment_id)).status).toBe("succeeded");
    expect(await core.stores.data.getItem(claimKey(pageId))).toBeNull();
  });
});
