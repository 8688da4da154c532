import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CHROMIUM,
  chromiumAvailable,
  deployQualitySites,
  launchForLighthouse,
  runAxe,
  runLighthouse,
  type QualitySite,
} from "../../bench/quality-audit.js";
import { launchBrowser } from "../../server/src/dashboard/browser-harness.js";
import type { RunningServer } from "../../server/src/serve.js";

if (!chromiumAvailable && process.env.LP_REQUIRE_BROWSER) throw new Error(`Chromium is required (LP_REQUIRE_BROWSER) but ${CHROMIUM} is missing`);
if (!chromiumAvailable) console.warn(`[skip] deployed page quality: install the Debian package chromium (${CHROMIUM} is missing)`);

/**
 * Deployed pages (physical and service, en and fr) scored by Lighthouse 13 and axe-core in
 * Chromium. Category scores are not timings, so they are asserted; performance is derived from
 * timings and is only printed, by `npm run quality`.
 */
describe.skipIf(!chromiumAvailable)("deployed page quality (Lighthouse, axe)", () => {
  let server: RunningServer;
  let sites: QualitySite[];
  let browser: Browser;
  let lighthouseChrome: { port: number; kill(): Promise<void> };

  beforeAll(async () => {
    ({ server, sites } = await deployQualitySites());
    browser = await launchBrowser();
    lighthouseChrome = await launchForLighthouse();
  }, 60_000);

  afterAll(async () => {
    await lighthouseChrome?.kill();
    await browser?.close();
    await server?.close();
  });

  for (const name of ["physical en", "physical fr", "service en", "service fr"]) {
    it(`${name}: axe finds no violation`, async () => {
      const site = sites.find((s) => s.name === name)!;
      expect(await runAxe(browser, site.url)).toEqual([]);
    }, 60_000);

    it(`${name}: Lighthouse accessibility, best practices and SEO are 100`, async () => {
      const site = sites.find((s) => s.name === name)!;
      const { scores, failed } = await runLighthouse(site.url, lighthouseChrome.port, ["accessibility", "best-practices", "seo"]);
      expect({ scores, failed }).toEqual({ scores: { accessibility: 100, "best-practices": 100, seo: 100 }, failed: [] });
    }, 120_000);
  }
});
