import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiver, type Receiver } from "@lp/webhooks";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { startServer, type RunningServer } from "../serve.js";
import { ARTIFACTS, launchBrowser, VIEWPORTS } from "./browser-harness.js";

/** The developer plane's Basic credentials of a server's dev application. */
export const basicAuth = (server: RunningServer) => `Basic ${Buffer.from(`${server.credentials.application_id}:${server.credentials.client_secret}`).toString("base64")}`;

/** What a browser suite works with: a real server with data, a logged-in tab, and a webhook receiver. */
export interface DashboardFixture {
  server: RunningServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Subscribed to product.created; its first delivery fails with a 500, the next ones are accepted. */
  receiver: Receiver;
  /** A generated page of the dev account. */
  pageId: string;
  /** A call to the API with the dev token. */
  api(path: string, init?: RequestInit): Promise<Response>;
}

/**
 * Registers the hooks of a browser suite on `storage`: before all, a real `startServer` (one webhook attempt, no
 * retries), an endpoint, a product and its page, and Chromium at 1440x900 logged in with a one-time URL (the same
 * URL refused in a second browser); a picture of each failed test; everything closed after all.
 */
export function useDashboardFixture(storage: "memory" | "sqlite"): DashboardFixture {
  const f = {} as DashboardFixture;
  let dataDir: string | undefined;
  beforeAll(async () => {
    dataDir = storage === "sqlite" ? mkdtempSync(join(tmpdir(), "lp-dashboard-")) : undefined;
    f.server = await startServer({ storage, dataDir, port: 0, log: null, retrySchedule: [0] });
    const { core, credentials } = f.server;
    f.api = (path, init = {}) =>
      fetch(`${f.server.url}${path}`, { ...init, headers: { authorization: `Bearer ${credentials.token}`, "content-type": "application/json", ...init.headers } });
    f.receiver = await createReceiver({ respond: [500, 200] });
    const made = await fetch(`${f.server.url}/v1/developer/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: basicAuth(f.server), "content-type": "application/json" },
      body: JSON.stringify({ url: `${f.receiver.url}/hooks`, events: ["product.created"] }),
    });
    expect(made.status).toBe(201);
    const product = await core.products.create(credentials.account_id, { title: "Linen Apron", price: 42, product_type: "physical" });
    const job = await core.pages.create(credentials.account_id, { product_id: product.id }, null);
    await core.onIdle();
    f.pageId = (await core.pages.getJob(credentials.account_id, job.job_id)).page_id!;
    f.browser = await launchBrowser();
    f.context = await f.browser.newContext({ viewport: VIEWPORTS.desktop });
    f.page = await f.context.newPage();
    const login = f.server.dashboardLoginUrl!();
    await f.page.goto(login);
    await expect(f.page.locator("h1").textContent()).resolves.toBe("Requests");
    // The same URL again, in another browser: refused.
    const other = await f.browser.newContext();
    const again = await (await other.newPage()).goto(login);
    expect(again?.status()).toBe(401);
    await other.close();
  }, 60_000);

  // A failed test leaves a picture of what the browser showed.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === "fail") await f.page?.screenshot({ path: `${ARTIFACTS}/failed-${storage}-${ctx.task.name.slice(0, 40).replace(/\W+/g, "-")}.png`, fullPage: true }).catch(() => {});
  });

  afterAll(async () => {
    await f.browser?.close();
    await f.receiver?.close();
    await f.server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  return f;
}
