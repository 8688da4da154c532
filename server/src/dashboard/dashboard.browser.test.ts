import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiver, type Receiver } from "@lp/webhooks";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../serve.js";
import { ARTIFACTS, browserAvailable, DOCS, expectNoAxeViolations, launchBrowser, sidewaysOverflow, VIEWPORTS, waitForView } from "./browser-harness.js";

/** The developer plane's Basic credentials of a server's dev application. */
const basicAuth = (server: RunningServer) => `Basic ${Buffer.from(`${server.credentials.application_id}:${server.credentials.client_secret}`).toString("base64")}`;

/** The dashboard in headless Chromium against a real server: live views, actions, access rules, axe, keyboard. */
describe.skipIf(!browserAvailable).each(["memory", "fs"] as const)("dashboard in Chromium (%s)", (storage) => {
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
    dataDir = storage === "fs" ? mkdtempSync(join(tmpdir(), "lp-dashboard-")) : undefined;
    server = await startServer({ storage, dataDir, port: 0, log: null, retrySchedule: [0] });
    const { core, credentials } = server;
    // The first delivery fails with a 500 (one attempt, no retries); the next is accepted.
    receiver = await createReceiver({ respond: [500, 200] });
    const basic = basicAuth(server);
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
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    page = await context.newPage();
    const login = server.dashboardLoginUrl!();
    await page.goto(login);
    await expect(page.locator("h1").textContent()).resolves.toBe("Requests");
    // The same URL again, in another browser: refused.
    const other = await browser.newContext();
    const again = await (await other.newPage()).goto(login);
    expect(again?.status()).toBe(401);
    await other.close();
  }, 60_000);

  // A failed test leaves a picture of what the browser showed.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail") await page.screenshot({ path: `${ARTIFACTS}/failed-${storage}-${ctx.task.name.slice(0, 40).replace(/\W+/g, "-")}.png`, fullPage: true }).catch(() => {});
  });

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

  it("shows a generation the moment it starts, each step live with its duration, and a failed one with its error", async () => {
    server.core.delays.generationStepMs = 250;
    await page.goto(`${server.url}/_dashboard/#/pages`);
    await waitForView(page, "Pages");
    await page.getByRole("button", { name: "Generate" }).click();
    // Listed while it runs, before any page exists.
    const running = page.locator('li.job[data-status="processing"]').first();
    await running.waitFor();
    const id = await running.getAttribute("data-id");
    const done = page.locator(`li.job[data-id="${id}"][data-status="completed"]`);
    await done.waitFor({ timeout: 15_000 });
    await expect(done.locator(".timeline li.done .took").count()).resolves.toBe(4);
    await page.getByRole("status").filter({ hasText: "Page generated" }).waitFor();
    // The same with Lp-Simulate: generation_failed chosen in the UI: the job fails at its images, and says why.
    await page.goto(`${server.url}/_dashboard/#/settings`);
    await page.getByLabel("Mode").selectOption("generation_failed");
    await page.goto(`${server.url}/_dashboard/#/pages`);
    await waitForView(page, "Pages");
    await page.getByText("Lp-Simulate: generation_failed is on").waitFor();
    await page.getByRole("button", { name: "Generate" }).click();
    const failed = page.locator('li.job[data-status="failed"]').first();
    await failed.waitFor({ timeout: 15_000 });
    await expect(failed.locator(".timeline li.failed").first().getAttribute("data-step")).resolves.toBe("generating_images");
    await expect(failed.textContent()).resolves.toContain("generation_failed");
    await page.getByRole("alert").filter({ hasText: "failed: generation_failed" }).waitFor();
    await page.goto(`${server.url}/_dashboard/#/settings`);
    await page.getByLabel("Mode").selectOption("");
    server.core.delays.generationStepMs = 0;
  });

  it("deploys a page from the UI and follows the timeline to succeeded, with each step's duration", async () => {
    server.core.delays.deploymentStepMs = 150;
    await page.goto(`${server.url}/_dashboard/#/page/${pageId}`);
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.locator('li.deployment[data-status="deploying"]').first().waitFor();
    const done = page.locator('li.deployment[data-status="succeeded"]');
    await done.waitFor({ timeout: 15_000 });
    await expect(done.locator(".timeline li.done").count()).resolves.toBe(4);
    await expect(done.locator(".timeline .took").count()).resolves.toBe(3);
    await page.getByRole("status").filter({ hasText: "succeeded" }).waitFor();
    server.core.delays.deploymentStepMs = 0;
  });

  it("reports Verify and Send test against a receiver that is gone as refused, not done", async () => {
    const gone = await createReceiver();
    const made = await fetch(`${server.url}/v1/developer/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: basicAuth(server), "content-type": "application/json" },
      body: JSON.stringify({ url: `${gone.url}/gone`, events: ["page.created"] }),
    });
    expect(made.status).toBe(201);
    const endpointId = (await made.json()).data.id as string;
    await gone.close();
    await page.goto(`${server.url}/_dashboard/#/webhooks`);
    await waitForView(page, "Webhooks");
    const row = page.locator("tr", { has: page.getByText(endpointId) });
    await row.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("alert").filter({ hasText: "Verify: the endpoint failed the challenge" }).waitFor();
    await row.getByRole("button", { name: "Send test" }).click();
    await page.getByRole("alert").filter({ hasText: /Send test: (refused by the endpoint|skipped|.*not active)/ }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("status").filter({ hasText: "done" }).count()).toBe(0);
  });

  it("request log: hides the dashboard's own calls unless asked, opens a linked exchange under its row, copies it as curl, replays it", async () => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const made = await api(`/v1/accounts/${server.credentials.account_id}/products`, { method: "POST", body: JSON.stringify({ title: "Oak Spoon", price: 9, product_type: "physical" }) });
    const id = made.headers.get("x-request-id")!;
    // The products view lists them through the dashboard's relay: calls of its own.
    await page.goto(`${server.url}/_dashboard/#/products`);
    await waitForView(page, "Products");
    await page.goto(`${server.url}/_dashboard/#/requests`);
    await waitForView(page, "Requests");
    await page.locator("tbody tr").first().waitFor();
    expect(await page.locator("td", { hasText: "(dashboard)" }).count()).toBe(0);
    await page.getByLabel("Show the dashboard's own calls").check();
    await page.locator("td", { hasText: "(dashboard)" }).first().waitFor();
    // A deep link opens the exchange under its own row, on screen.
    await page.goto(`${server.url}/_dashboard/#/requests/${id}`);
    const panel = page.locator("tr.detail section.panel");
    await panel.waitFor();
    const box = (await panel.boundingBox())!;
    expect(box.y).toBeLessThan(VIEWPORTS.desktop.height);
    expect(box.y + box.height).toBeGreaterThan(0);
    await panel.getByRole("button", { name: "Copy as curl" }).click();
    await panel.getByRole("status").filter({ hasText: "Copied as curl" }).waitFor();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl -X POST '${server.url}/v1/accounts/${server.credentials.account_id}/products'`);
    expect(curl).toContain("$LP_TOKEN");
    expect(curl).toContain("Oak Spoon");
    expect(curl).not.toContain(server.credentials.token);
    await panel.getByRole("button", { name: "Replay" }).click();
    await page.waitForFunction((old) => location.hash.startsWith("#/requests/req_") && !location.hash.endsWith(old), id);
    await page.locator("tr.detail section.panel h2", { hasText: "→ 201" }).waitFor();
    await expect(page.locator("tr.detail section.panel").textContent()).resolves.toContain("replay");
    const products = await (await api(`/v1/accounts/${server.credentials.account_id}/products?per_page=100`)).json();
    expect(products.data.filter((p: { title: string }) => p.title === "Oak Spoon")).toHaveLength(2);
  });

  it("products: offers only the types the API takes, edits every field from the product's own address, and deletes", async () => {
    await page.goto(`${server.url}/_dashboard/#/products`);
    await waitForView(page, "Products");
    const form = page.locator("form", { has: page.getByRole("heading", { name: "New product" }) });
    await expect(form.getByLabel("Type").locator("option").allTextContents()).resolves.toEqual(["physical", "service"]);
    await form.getByLabel("Title").fill("Clay Cup");
    await form.getByLabel("Price", { exact: true }).fill("18");
    await form.getByLabel("Original price").fill("22");
    await form.getByLabel("Type").selectOption("service");
    await form.getByRole("button", { name: "Create product" }).click();
    await page.getByRole("status").filter({ hasText: "Created Clay Cup." }).waitFor();
    await page.getByRole("link", { name: "Edit Clay Cup" }).click();
    expect(new URL(page.url()).hash).toMatch(/^#\/products\/[0-9a-f-]{36}/);
    const editor = page.locator("section.panel");
    await editor.getByLabel("Delivery price").fill("3.5");
    await editor.getByLabel("Title").fill("Clay Cup, glazed");
    await editor.getByRole("button", { name: "Save product" }).click();
    await editor.getByRole("status").filter({ hasText: "Saved Clay Cup, glazed." }).waitFor();
    const id = new URL(page.url()).hash.split("/")[2].split("?")[0];
    const saved = await (await api(`/v1/accounts/${server.credentials.account_id}/products/${id}`)).json();
    expect(saved.data).toMatchObject({ title: "Clay Cup, glazed", price: 18, original_price: 22, delivery_price: 3.5, product_type: "service" });
    page.once("dialog", (dialog) => void dialog.accept());
    await editor.getByRole("button", { name: "Delete product" }).click();
    await page.waitForFunction(() => location.hash.startsWith("#/products") && !location.hash.includes("-"));
    expect((await api(`/v1/accounts/${server.credentials.account_id}/products/${id}`)).status).toBe(404);
  });

  it("sends an event from its editable fixture and lists the endpoints that got it", async () => {
    await page.goto(`${server.url}/_dashboard/#/events`);
    await waitForView(page, "Send an event");
    const body = page.getByLabel(/Body of the call/);
    await body.fill(JSON.stringify({ title: "Sent Event Lamp", price: 7, product_type: "physical" }));
    await page.getByRole("button", { name: "Send product.created" }).click();
    await page.getByRole("status").filter({ hasText: "endpoint deliveries" }).waitFor({ timeout: 15_000 });
    // The receiver created in beforeAll is subscribed to product.created.
    await page.getByRole("cell", { name: `${receiver.url}/hooks` }).waitFor();
    const listed = await (await api(`/v1/accounts/${server.credentials.account_id}/products?per_page=100`)).json();
    expect(listed.data.map((p: { title: string }) => p.title)).toContain("Sent Event Lamp");
    await body.fill("{ not json");
    await page.getByRole("button", { name: "Send product.created" }).click();
    await page.getByRole("alert").filter({ hasText: "not JSON" }).waitFor();
  });

  for (const [view, heading] of [
    ["requests", "Requests"],
    ["accounts", "Accounts"],
    ["products", "Products"],
    ["pages", "Pages"],
    ["page", "Page"],
    ["webhooks", "Webhooks"],
    ["events", "Send an event"],
    ["settings", "Faults and data"],
  ] as const) {
    it(`has no axe violations and no sideways scroll on the ${view} view, at 1440x900 and 390x844`, async () => {
      for (const [size, viewport] of Object.entries(VIEWPORTS)) {
        await page.setViewportSize(viewport);
        await page.goto(`${server.url}/_dashboard/#/${view === "page" ? `page/${pageId}` : view}`);
        await waitForView(page, heading);
        // Check the panels that open inside a view too: one exchange of the log, one endpoint's deliveries.
        if (view === "requests") await page.locator("td button.link").first().click();
        if (view === "webhooks") await page.getByRole("button", { name: "Deliveries" }).first().click();
        if (view === "products") await page.getByRole("link", { name: /^Edit / }).first().click();
        if (view === "requests" || view === "webhooks" || view === "products") await page.locator("section.panel").first().waitFor();
        await page.waitForFunction(() => !document.querySelector("main")?.textContent?.includes("Loading..."));
        await expectNoAxeViolations(page);
        expect(await sidewaysOverflow(page), `${view} at ${size}`).toBe("0");
        await page.screenshot({ path: `${ARTIFACTS}/dashboard-${storage}-${view}-${size}.png`, fullPage: true });
        if (DOCS && storage === "memory") await page.screenshot({ path: `${DOCS}${view}${size === "phone" ? "-phone" : ""}.png`, fullPage: false });
      }
      await page.setViewportSize(VIEWPORTS.desktop);
    }, 90_000);
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
