import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason } from "../../../core/src/testing/redis-server.js";
import { CLUSTER_ADMIN_KEY, startCluster, type Cluster } from "../../../test/cluster/cluster.js";
import { ARTIFACTS, browserAvailable, expectNoAxeViolations, launchBrowser, VIEWPORTS, waitForView } from "./browser-harness.js";

if (!redisAvailable) console.warn(redisSkipReason("the dashboard on a Redis cluster"));

/**
 * The dashboard on two real `lp serve --storage redis` processes (built CLI: build first): a login URL one
 * process mints works on the other, and the session it opens is good on both, changes included.
 */
describe.skipIf(!browserAvailable || !redisAvailable)("dashboard on a 2-process Redis cluster (Chromium)", () => {
  let cluster: Cluster;
  let browser: Browser;

  beforeAll(async () => {
    cluster = await startCluster({ processes: 2 });
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await cluster?.stop();
  });

  it("logs in on one process with a URL minted by the other, and keeps the session on both", { timeout: 90_000 }, async () => {
    const [a, b] = cluster.nodes;
    const minted = await fetch(`${a.url}/_dashboard/login-tokens`, { method: "POST", headers: { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` } });
    expect(minted.status).toBe(201);
    const path = (await minted.json()).data.url as string;
    const page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    await page.goto(`${b.url}${path}#/settings`);
    await waitForView(page, "Faults and data");
    await page.locator('[data-live="open"]').waitFor();
    // The same browser on the other process (cookies do not depend on the port): no new login.
    await page.goto(`${a.url}/_dashboard/#/settings`);
    await waitForView(page, "Faults and data");
    await page.getByRole("button", { name: "Save delays" }).click();
    await page.getByRole("status").filter({ hasText: "Delays saved." }).waitFor();
    await page.goto(`${b.url}/_dashboard/#/accounts`);
    await waitForView(page, "Accounts");
    await expect(page.getByRole("cell", { name: cluster.account }).count()).resolves.toBeGreaterThan(0);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-cluster.png` });
    await page.context().close();
  });
});
