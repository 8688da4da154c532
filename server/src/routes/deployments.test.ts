import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

const inline = { title: "Ceramic Mug <script>alert(1)</script>", description: "Stoneware, 350 ml.", price: 24.5, product_type: "physical" };

describe("deployments and sites", () => {
  let t: TestApp;
  let pageId: string;
  beforeEach(async () => {
    t = await createTestApp();
    const res = await t.call("POST", "pages", { body: { product: inline } });
    await t.core.onIdle();
    pageId = (await t.call("GET", res.json.data.poll_url)).json.data.page_id;
  });
  afterEach(async () => {
    await t.close();
  });

  const deploy = (headers: Record<string, string> = {}) => t.call("POST", `pages/${pageId}/deployments`, { headers });

  /** Keeps deployments in flight until the test releases them. */
  async function settle() {
    t.core.delays.deploymentStepMs = 0;
    while (t.core.queue.pending > 0) {
      t.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await t.core.onIdle();
  }

  it("deploys a page, serves the site, and lists the history", async () => {
    t.core.delays.deploymentStepMs = 1000;
    const started = await deploy();
    expect(started.status).toBe(202);
    const { deployment_id, poll_url } = started.json.data;
    expect(started.json.data).toEqual({ deployment_id, poll_url, deployed_url: null, deployed_at: null });
    expect(started.headers.get("location")).toBe(poll_url);
    expect((await t.call("GET", poll_url)).json.data).toMatchObject({ status: "deploying", deploy_step: "rendering" });

    await settle();
    const done = (await t.call("GET", poll_url)).json.data;
    expect(done).toMatchObject({ status: "succeeded", deploy_step: null, error_code: null, error_message: null });
    expect(done.deployed_url).toBe("http://lp.test/sites/acct_dev/ceramic-mug-script-alert-1-script/");
    const page = (await t.call("GET", `pages/${pageId}`)).json.data;
    expect(page).toMatchObject({ status: "published", deployed_url: done.deployed_url });

    const site = await t.app.request(new URL(done.deployed_url).pathname);
    expect(site.status).toBe(200);
    expect(site.headers.get("content-type")).toContain("text/html");
    const html = await site.text();
    expect(html).toContain("$24.50");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain('action="http://lp.test/sites/acct_dev/ceramic-mug-script-alert-1-script/checkout"');
    const cached = await t.app.request(new URL(done.deployed_url).pathname, { headers: { "if-none-match": site.headers.get("etag")! } });
    expect(cached.status).toBe(304);

    const history = await t.call("GET", `pages/${pageId}/deployments`);
    expect(history.json.data.map((d: any) => d.id)).toEqual([deployment_id]);
    expect((await t.call("GET", `pages/${pageId}/deployments?status=failed`)).json.data).toEqual([]);
  });

  it("answers 409 with the active deployment while one is in flight, even under concurrent starts", async () => {
    t.core.delays.deploymentStepMs = 1000;
    const results = await Promise.all(Array.from({ length: 20 }, () => deploy()));
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted).toHaveLength(1);
    const conflicts = results.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(19);
    expect(conflicts[0].json.error).toMatchObject({
      code: "deployment_in_progress",
      details: { active_deployment_id: accepted[0].json.data.deployment_id, poll_url: accepted[0].json.data.poll_url },
    });
    await settle();
    expect((await deploy()).status).toBe(202);
  });

  it("reports a simulated failure on the deployment and keeps the previous site", async () => {
    await deploy();
    await t.core.onIdle();
    await t.call("PATCH", `pages/${pageId}`, { body: { seo_config: { title: "Changed title" } } });
    const failed = await deploy({ "lp-simulate": "deployment_failed" });
    await t.core.onIdle();
    const d = (await t.call("GET", failed.json.data.poll_url)).json.data;
    expect(d).toMatchObject({ status: "failed", deploy_step: "rendering", error_code: "render_failed", deployed_url: null });
    const html = await (await t.app.request("/sites/acct_dev/ceramic-mug-script-alert-1-script/")).text();
    expect(html).not.toContain("Changed title");
  });

  it("records a valid checkout post and refuses a missing required field", async () => {
    await deploy();
    await t.core.onIdle();
    const action = "/sites/acct_dev/ceramic-mug-script-alert-1-script/checkout";
    const refused = await t.app.request(action, { method: "POST", body: new URLSearchParams({ name: "Ada" }) });
    expect(refused.status).toBe(400);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain("checkout-errors");
    // The same footer as the page: where the details go, and that nothing is paid here.
    expect(refusedHtml).toContain('<footer class="site-footer">');
    expect(refusedHtml).toContain("No payment is taken on this page.");
    const ok = await t.app.request(action, {
      method: "POST",
      body: new URLSearchParams({ name: "Ada Lovelace", phone: "+44 20 7946 0000", address: "1 Main St", city: "London" }),
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("Ada Lovelace");
    const stored = await t.core.database.db.selectFrom("checkouts").selectAll().execute();
    expect(stored.map((row) => [row.account_id, row.page_id, JSON.parse(row.values).name])).toEqual([["acct_dev", pageId, "Ada Lovelace"]]);
  });

  it("deleting a page cancels its deployment, takes the site down and removes the history", async () => {
    await deploy();
    await t.core.onIdle();
    t.core.delays.deploymentStepMs = 1000;
    const inflight = await deploy();
    const polled = await t.call("GET", inflight.json.data.poll_url);
    expect(polled.json.data.status).toBe("deploying");
    expect((await t.call("DELETE", `pages/${pageId}`)).status).toBe(204);
    await settle();
    expect((await t.app.request("/sites/acct_dev/ceramic-mug-script-alert-1-script/")).status).toBe(404);
    expect((await t.call("GET", inflight.json.data.poll_url)).status).toBe(404);
    // The page's deployments, its site and the site's files went with it.
    const db = t.core.database.db;
    expect(await db.selectFrom("deployments").select("id").where("page_id", "=", pageId).execute()).toEqual([]);
    expect(await db.selectFrom("sites").select("slug").where("page_id", "=", pageId).execute()).toEqual([]);
    expect(await db.selectFrom("site_files").select("deployment_id").execute()).toEqual([]);
  });
});
