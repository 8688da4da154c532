import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import { browserAvailable, CHROMIUM, CHROMIUM_ARGS } from "../testing/chromium.js";

export { browserAvailable, CHROMIUM };
if (!browserAvailable && process.env.LP_REQUIRE_BROWSER) throw new Error(`Chromium is required (LP_REQUIRE_BROWSER) but ${CHROMIUM} is missing`);
if (!browserAvailable) console.warn(`Skipping the browser tests: ${CHROMIUM} is missing (Debian package: chromium).`);

/** Where failing or checked views are photographed. */
export const ARTIFACTS = "test-artifacts";
/** `LP_DASHBOARD_SCREENSHOTS=1` refreshes the screenshots in docs/dashboard/. */
export const DOCS = process.env.LP_DASHBOARD_SCREENSHOTS ? fileURLToPath(new URL("../../../docs/dashboard/", import.meta.url)) : null;
const UI = fileURLToPath(new URL("../../dist/dashboard-ui/manifest.json", import.meta.url));

/** The two sizes every view is checked at: a laptop and a phone. */
export const VIEWPORTS = { desktop: { width: 1440, height: 900 }, phone: { width: 390, height: 844 } } as const;

/**
 * Builds the UI when the dist has none (a test run from sources), then connects to the run's Chromium (the `browser`
 * project's global setup, `server/src/testing/chromium-global-setup.ts`), or starts one when the suite runs outside
 * that project. `close()` on the result closes the suite's contexts (and, when it started one, the browser).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(UI)) execFileSync(process.execPath, [fileURLToPath(new URL("../../scripts/build-dashboard.mjs", import.meta.url))]);
  mkdirSync(ARTIFACTS, { recursive: true });
  if (DOCS) mkdirSync(DOCS, { recursive: true });
  const endpoint = inject("lpChromiumEndpoint");
  return endpoint ? chromium.connect(endpoint) : chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/**
 * Fails with the rule and the elements when axe-core finds any violation (the builder preview frame is the site's
 * own suite's). Legacy mode runs axe.run() in the page itself: the default mode also runs axe in every frame and
 * finishes in a blank page of its own, twice the time for the same verdict when the only frame is excluded.
 */
export async function expectNoAxeViolations(page: Page, what = page.url()): Promise<void> {
  const result = await new AxeBuilder({ page }).exclude("iframe").setLegacyMode(true).analyze();
  expect(result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`), `axe on ${what}`).toEqual([]);
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
