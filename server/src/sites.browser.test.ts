import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARTIFACTS, browserAvailable, launchBrowser } from "./dashboard/browser-harness.js";
import { startServer, type RunningServer } from "./serve.js";

/** A deployed site in a real headless browser: rendering, no outside requests, widths, checkout. */
describe.skipIf(!browserAvailable)("deployed site in Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  let siteUrl: string;

  beforeAll(async () => {
    server = await startServer({ storage: "memory", port: 0, log: null });
    const { core, credentials } = server;
    const product = await core.products.create(credentials.account_id, {
      title: "Linen Apron",
      description: "Stonewashed linen with pockets.",
      price: 42,
      original_price: 55,
      delivery_price: 4.9,
      product_type: "physical",
    });
    const job = await core.pages.create(credentials.account_id, { product_id: product.id }, null);
    await core.onIdle();
    const pageId = (await core.pages.getJob(credentials.account_id, job.job_id)).page_id!;
    const started = await core.deployments.start(credentials.account_id, pageId, null);
    await core.onIdle();
    siteUrl = (await core.deployments.get(credentials.account_id, pageId, started.deployment_id)).deployed_url!;
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const [name, viewport] of [
    ["phone", { width: 390, height: 844 }],
    ["desktop", { width: 1280, height: 800 }],
  ] as const) {
    it(`renders the product and price at ${name} width with no outside request`, async () => {
      const page = await browser.newPage({ viewport });
      const requested: string[] = [];
      page.on("request", (r) => requested.push(r.url()));
      await page.goto(siteUrl, { waitUntil: "networkidle" });
      await expect(page.locator("h1").first().textContent()).resolves.toBeTruthy();
      const text = await page.locator("body").innerText();
      expect(text).toContain("Linen Apron");
      expect(text).toContain("$42.00");
      expect(requested.length).toBeGreaterThan(0);
      expect(requested.filter((u) => !u.startsWith(server.url) && !u.startsWith("data:"))).toEqual([]);
      // Nothing wider than the screen: the layout is responsive.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${ARTIFACTS}/site-${name}.png`, fullPage: true });
      await page.close();
    });
  }

  it("submits the checkout form and shows the confirmation; a required field left empty is refused", async () => {
    const page = await browser.newPage();
    await page.goto(siteUrl);
    const form = page.locator("form").first();
    await form.locator('[name="name"]').fill("Grace Hopper");
    await form.locator('[name="phone"]').fill("+1 555 0100");
    await form.locator('[name="address"]').fill("12 Harbour Road");
    // city left empty: the browser refuses to send the form.
    await form.locator('button[type="submit"], input[type="submit"]').first().click();
    expect(page.url()).toBe(siteUrl);
    expect(await form.evaluate((f: HTMLFormElement) => f.checkValidity())).toBe(false);

    // A post that skips the browser's checks is refused by the server too.
    await form.evaluate((f: HTMLFormElement) => {
      f.noValidate = true;
    });
    await Promise.all([page.waitForNavigation(), form.locator('button[type="submit"], input[type="submit"]').first().click()]);
    expect(await page.locator(".checkout-errors").innerText()).toMatch(/city/i);

    await page.goto(siteUrl);
    await page.locator('[name="name"]').fill("Grace Hopper");
    await page.locator('[name="phone"]').fill("+1 555 0100");
    await page.locator('[name="address"]').fill("12 Harbour Road");
    await page.locator('[name="city"]').fill("Arlington");
    await Promise.all([page.waitForNavigation(), page.locator('button[type="submit"], input[type="submit"]').first().click()]);
    const confirmation = await page.locator("body").innerText();
    expect(confirmation).toContain("Grace Hopper");
    await page.screenshot({ path: `${ARTIFACTS}/checkout-confirmation.png`, fullPage: true });
    expect(await server.core.database.db.selectFrom("checkouts").select("id").where("account_id", "=", server.credentials.account_id).execute()).toHaveLength(1);
    await page.close();
  });
});
