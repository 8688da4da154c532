import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";

/** Debian's Chromium, or `LP_CHROMIUM`. */
export const CHROMIUM = process.env.LP_CHROMIUM ?? "/usr/bin/chromium";
/** Whether the browser suites can run here; they fail instead of skipping under `LP_REQUIRE_BROWSER=1`. */
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.LP_REQUIRE_BROWSER) throw new Error(`Chromium is required (LP_REQUIRE_BROWSER) but ${CHROMIUM} is missing`);
if (!browserAvailable) console.warn(`Skipping the dashboard browser tests: ${CHROMIUM} is missing (Debian package: chromium).`);

/** Where failing or checked views are photographed. */
export const ARTIFACTS = "test-artifacts";
/** `LP_DASHBOARD_SCREENSHOTS=1` refreshes the screenshots in docs/dashboard/. */
export const DOCS = process.env.LP_DASHBOARD_SCREENSHOTS ? fileURLToPath(new URL("../../../docs/dashboard/", import.meta.url)) : null;
const UI = fileURLToPath(new URL("../../dist/dashboard-ui/manifest.json", import.meta.url));

/** The two sizes every view is checked at: a laptop and a phone. */
export const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** Builds the UI when the dist has none (a test run from sources), then starts headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(UI)) execFileSync(process.execPath, [fileURLToPath(new URL("../../scripts/build-dashboard.mjs", import.meta.url))]);
  mkdirSync(ARTIFACTS, { recursive: true });
  if (DOCS) mkdirSync(DOCS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}

/** Fails with the rule and the elements when axe-core finds any violation (the builder preview frame is the site's own suite's). */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  const result = await new AxeBuilder({ page }).exclude("iframe").analyze();
  expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/**
 * How far the page scrolls sideways: "0" when nothing is wider than the window, else the overflow in pixels
 * and the deepest elements that stick out, so a failure names its cause.
 */
export function sidewaysOverflow(page: Page): Promise<string> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const over = root.scrollWidth - root.clientWidth;
    if (over <= 0) return "0";
    const culprits = [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5 && ![...el.children].some((c) => c.getBoundingClientRect().right > root.clientWidth + 0.5))
      .concat([...document.querySelectorAll("body *")].filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible" && el.clientWidth > 0))
      .slice(0, 6)
      .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} (${el.scrollWidth}/${el.clientWidth}) "${(el.textContent ?? "").slice(0, 30)}"`);
    return `${over}px: ${culprits.join("; ")}`;
  });
}

/** Waits until the current view has its data (the live stream stays open, so "network idle" never comes). */
export async function waitForView(page: Page, heading: string | RegExp): Promise<void> {
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await page.waitForFunction(() => !document.querySelector("main")?.textContent?.includes("Loading..."));
}
