import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AxeBuilder } from "@axe-core/playwright";
import { createReceiver, type Receiver } from "@lp/webhooks";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../serve.js";

const CHROMIUM = process.env.LP_CHROMIUM ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available && process.env.LP_REQUIRE_BROWSER) throw new Error(`Chromium is required (LP_REQUIRE_BROWSER) but ${CHROMIUM} is missing`);
if (!available) console.warn(`Skipping the dashboard browser tests: ${CHROMIUM} is missing (Debian package: chromium).`);
const ARTIFACTS = "test-artifacts";
/** LP_DASHBOARD_SCREENSHOTS=1 refreshes the screenshots in docs/dashboard/. */
const DOCS = process.env.LP_DASHBOARD_SCREENSHOTS ? fileURLToPath(new URL("../../../docs/dashboard/", import.meta.url)) : null;
const UI = fileURLToPath(new URL("../../dist/dashboard-ui/manifest.json", import.meta.url));

/** The dashboard in headless Chromium against a real server: live views, actions, access rules, axe, keyboard. */
describe.skipIf(!available).each(["memory", "fs"] as const)("dashboard in Chromium (%s)", (storage) => {
  let server: RunningServer;
  let dataDir: string | undefined;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: Receiver;
  let pageId: string;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${server.credentials.token}`, "content-type": "application/json", ...init.headers } });

  beforeAll(async () => {
    if (!existsSync(UI)) execFileSync(process.execPath, [fileURLToPath(new URL("../../scripts/build-dashboard.mjs", import.meta.url))]);
    dataDir = storage === "fs" ? mkdtempSync(join(tmpdir(), "lp-dashboard-")) : undefined;
    server = await startServer({ storage, dataDir, port: 0, log: null, retrySchedule: [0] });
    const { core, credentials } = server;
    // The first delivery fails with a 500 (one attempt, no retries); the next is accepted.
    receiver = await createReceiver({ respond: [500, 200] });
    const basic = `Basic ${Buffer.from(`${credentials.application_id}:${credentials.client_secret}`).toString("base64")}`;
    const made = await fetch(`${server.url}/v1/developer/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/json" },
      body: JSON.stringify({ url: `${receiver.url}/hooks`, events: ["product.created"] }),
    });
    expect(made.status).toBe(201);
    const product = await core.products.create(credentials.account_id, { title: "Linen Apron", price: 42, product_type: "physical" });
    const job = await core.pages.create(credentials.account_id, { product_id: product.id }, null);
    await core.onIdle();
    pageId = (await core.pages.getJob(credentials.account_id, job.job_id)).page_id!;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    const login = server.dashboardLoginUrl!();
    await page.goto(login);
    await expect(page.locator("h1").textContent()).resolves.toBe("Requests");
    // The same URL again, in another browser: refused.
    const other = await browser.newContext();
    const again = await (await other.newPage()).goto(login);
    expect(again?.status()).toBe(401);
    await other.close();
    mkdirSync(ARTIFACTS, { recursive: true });
    if (DOCS) mkdirSync(DOCS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps the session in an HttpOnly, SameSite=Strict cookie scoped to /_dashboard", async () => {
    const [cookie] = await context.cookies(server.url + "/_dashboard/");
    expect(cookie).toMatchObject({ name: "lp_dashboard", httpOnly: true, sameSite: "Strict", path: "/_dashboard" });
    expect(await page.evaluate(() => document.cookie)).toBe("");
  });

  it("refuses a change sent without the CSRF token, accepts it with", async () => {
    const statuses = await page.evaluate(async (account) => {
      const body = JSON.stringify({ method: "GET", path: `/v1/accounts/${account}/products` });
      const token = document.querySelector('meta[name="lp-csrf"]')!.getAttribute("content")!;
      const without = await fetch("/_dashboard/api/call", { method: "POST", body, headers: { "content-type": "application/json" } });
      const withToken = await fetch("/_dashboard/api/call", { method: "POST", body, headers: { "content-type": "application/json", "x-csrf-token": token } });
      return [without.status, withToken.status];
    }, server.credentials.account_id);
    expect(statuses).toEqual([403, 200]);
  });

  it("shows a product created over the API without a reload", async () => {
    await page.goto(`${server.url}/_dashboard/#/products`);
    await page.getByRole("heading", { name: "Linen Apron" }).waitFor();
    const res = await api(`/v1/accounts/${server.credentials.account_id}/products`, { method: "POST", body: JSON.stringify({ title: "Walnut Board", price: 25, product_type: "physical" }) });
    expect(res.status).toBe(201);
    await page.getByRole("heading", { name: "Walnut Board" }).waitFor({ timeout: 5_000 });
    await page.goto(`${server.url}/_dashboard/#/requests`);
    await page.getByRole("cell", { name: `/v1/accounts/${server.credentials.account_id}/products` }).first().waitFor();
  });

  it("opens a failed delivery, retries it, and shows the new attempt", async () => {
    await server.core.onIdle();
    await page.goto(`${server.url}/_dashboard/#/webhooks`);
    await page.getByRole("button", { name: "Deliveries" }).first().click();
    const failed = page.locator('li.delivery[data-status="failed"]').first();
    await failed.locator("summary").click();
    await expect(failed.locator("tr.attempt").count()).resolves.toBe(1);
    const id = await failed.getAttribute("data-id");
    await failed.getByRole("button", { name: "Retry" }).click();
    const succeeded = page.locator(`li.delivery[data-id="${id}"][data-status="succeeded"]`);
    await succeeded.waitFor({ timeout: 10_000 });
    if (!(await succeeded.locator("details").getAttribute("open"))) await succeeded.locator("summary").click();
    await expect(succeeded.locator("tr.attempt").count()).resolves.toBe(2);
  });

  it("deploys a page from the UI and follows the timeline to succeeded", async () => {
    server.core.delays.deploymentStepMs = 150;
    await page.goto(`${server.url}/_dashboard/#/page/${pageId}`);
    await page.getByRole("button", { name: "Deploy" }).click();
    const done = page.locator('li.deployment[data-status="succeeded"]');
    await done.waitFor({ timeout: 15_000 });
    await expect(done.locator(".timeline li.done").count()).resolves.toBe(4);
    server.core.delays.deploymentStepMs = 0;
  });

  for (const [view, heading] of [
    ["requests", "Requests"],
    ["accounts", "Accounts"],
    ["products", "Products"],
    ["pages", "Pages"],
    ["page", "Page"],
    ["webhooks", "Webhooks"],
    ["settings", "Faults and data"],
  ] as const) {
    it(`has no axe violations on the ${view} view`, async () => {
      await page.goto(`${server.url}/_dashboard/#/${view === "page" ? `page/${pageId}` : view}`);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      // The live stream stays open, so "network idle" never comes: wait for the view's data instead.
      await page.waitForFunction(() => !document.querySelector("main")?.textContent?.includes("Loading..."));
      // Check the panels that open inside a view too: one exchange of the log, one endpoint's deliveries.
      if (view === "requests") await page.locator("td button.link").first().click();
      if (view === "webhooks") await page.getByRole("button", { name: "Deliveries" }).first().click();
      if (view === "requests" || view === "webhooks") await page.locator("section.panel").waitFor();
      const result = await new AxeBuilder({ page }).exclude("iframe").analyze();
      expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
      await page.screenshot({ path: `${ARTIFACTS}/dashboard-${storage}-${view}.png`, fullPage: true });
      if (DOCS && storage === "memory") await page.screenshot({ path: `${DOCS}${view}.png`, fullPage: false });
    });
  }

  it("works from the keyboard: skip link, then the navigation", async () => {
    await page.goto(`${server.url}/_dashboard/#/requests`);
    await page.reload(); // a fresh load: focus starts at the top of the document
    await page.getByRole("heading", { level: 1, name: "Requests" }).waitFor();
    await page.keyboard.press("Tab");
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe("Skip to content");
    await page.keyboard.press("Enter");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("main");
    await page.focus('nav a[href="#/products"]');
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Products" }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/products");
    // Focus moves to the new view once it has rendered (an effect after paint): wait for it, then
    // Shift+Tab from the main region goes back into the navigation.
    await page.waitForFunction(() => document.activeElement?.id === "main");
    await page.keyboard.press("Shift+Tab");
    await expect(page.evaluate(() => document.activeElement?.closest("nav") !== null)).resolves.toBe(true);
  });
});
