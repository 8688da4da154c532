import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../serve.js";
import { ARTIFACTS, browserAvailable, expectNoAxeViolations, launchBrowser, VIEWPORTS, waitForView } from "./browser-harness.js";

/** The dashboard while its server stops and starts again: a stop is not held by an open tab; a lost session says so. */
describe.skipIf(!browserAvailable)("dashboard across stops and restarts (Chromium)", () => {
  let browser: Browser;
  const dirs: string[] = [];
  const servers: RunningServer[] = [];
  const start = async (options: Parameters<typeof startServer>[0]) => {
    const server = await startServer({ storage: "memory", port: 0, log: null, ...options });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const server of servers) await server.close({ drainTimeoutMs: 1000 });
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function openTab(server: RunningServer, hash = ""): Promise<Page> {
    const page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
    await page.goto(`${server.dashboardLoginUrl!()}${hash}`);
    await waitForView(page, /./);
    // The live stream is open once the page says so.
    await page.locator('[data-live="open"]').waitFor();
    return page;
  }

  it("shows a manual clock's time in its header, moved by an advance, and no clock for the system's", { timeout: 60_000 }, async () => {
    const manual = await start({ clock: "manual", clockStart: "2026-05-01T12:00:00.000Z" });
    const page = await openTab(manual);
    await expect(page.locator(".manual-clock time").textContent()).resolves.toBe("2026-05-01 12:00:00 UTC");
    await expectNoAxeViolations(page, "the header with a manual clock");
    const moved = await fetch(`${manual.url}/_admin/clock`, { method: "POST", headers: { authorization: `Bearer ${manual.adminKey}`, "content-type": "application/json" }, body: JSON.stringify({ advance: "2h" }) });
    expect(moved.status).toBe(200);
    await page.reload();
    await expect(page.locator(".manual-clock time").textContent()).resolves.toBe("2026-05-01 14:00:00 UTC");
    await page.context().close();
    const system = await openTab(await start({}));
    await waitForView(system, "Requests");
    // Once the state is in (the account picker is filled), the header would show a manual clock.
    await system.locator("header select option").first().waitFor({ state: "attached" });
    expect(await system.locator(".manual-clock").count()).toBe(0);
    await system.context().close();
  });

  it("stops with a tab open without waiting for the drain timeout, and the tab says the server stopped", { timeout: 60_000 }, async () => {
    const server = await start({});
    const page = await openTab(server);
    // The stream would otherwise be reopened by the browser and held until the deadline, reported as left.
    const report = await server.close({ drainTimeoutMs: 8_000 });
    expect(report.left).toEqual([]);
    await page.getByRole("alert").filter({ hasText: "server stopped" }).waitFor();
    await page.context().close();
  });

  it("after a restart, says to log in again, keeps the view's address, and a new login URL returns to it", { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "lp-dashboard-restart-"));
    dirs.push(dataDir);
    const first = await start({ storage: "sqlite", dataDir });
    const port = Number(new URL(first.url).port);
    const page = await openTab(first, "#/settings");
    await waitForView(page, "Faults and data");
    await first.close({ drainTimeoutMs: 5_000 });
    const second = await start({ storage: "sqlite", dataDir, port });
    const notice = page.getByRole("alert").filter({ hasText: "log in again" });
    await notice.waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).hash).toBe("#/settings");
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-session-ended.png` });
    // The notice takes a new login URL and comes back to the same view.
    await page.getByLabel("New login URL").fill(second.dashboardLoginUrl!());
    await page.getByRole("button", { name: "Log in" }).click();
    await waitForView(page, "Faults and data");
    expect(new URL(page.url()).hash).toBe("#/settings");
    await page.context().close();
  });
});
