/**
 * `npm run quality`: deploys a physical and a service page in English and French, then prints
 * Lighthouse's four category scores (mobile preset) and axe-core's violations for each, against
 * the targets (accessibility, best practices and SEO 100; performance at least 95; axe 0).
 * Screenshots go to `docs/pages/` (phone width, whole page). Performance is timing-derived, so it
 * is printed here and never asserted in the test suite.
 */
import { mkdirSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_FLAGS, chromiumAvailable, deployQualitySites, launchForLighthouse, runAxe, runLighthouse } from "./quality-audit.js";

if (!chromiumAvailable) {
  process.stderr.write(`Chromium is missing at ${CHROMIUM}: install the Debian package chromium (or set LP_CHROMIUM).\n`);
  process.exit(2);
}

const SHOTS = "docs/pages";
const { server, sites } = await deployQualitySites();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
const lighthouseChrome = await launchForLighthouse();
const rows: string[][] = [];
let missed = 0;
try {
  mkdirSync(SHOTS, { recursive: true });
  for (const site of sites) {
    const violations = await runAxe(browser, site.url);
    // One run per page, like the test; the mobile preset's simulated throttling keeps runs comparable.
    const { scores, failed } = await runLighthouse(site.url, lighthouseChrome.port);
    const page = await browser.newPage({ viewport: { width: 412, height: 823 }, deviceScaleFactor: 1 });
    await page.goto(site.url, { waitUntil: "load" });
    await page.screenshot({ path: `${SHOTS}/${site.productType}-${site.language}.png`, fullPage: true });
    await page.close();
    const met =
      scores.accessibility === 100 && scores["best-practices"] === 100 && scores.seo === 100 && (scores.performance ?? 0) >= 95 && violations.length === 0;
    if (!met) missed++;
    rows.push([
      site.name,
      String(scores.performance),
      String(scores.accessibility),
      String(scores["best-practices"]),
      String(scores.seo),
      String(violations.length),
      met ? "yes" : "no",
    ]);
    for (const line of [...failed, ...violations.map((v) => `axe/${v.id} x${v.nodes}: ${v.help}`)]) process.stderr.write(`  ${site.name}: ${line}\n`);
  }
} finally {
  await lighthouseChrome.kill();
  await browser.close();
  await server.close();
}

const header = ["page", "performance (>= 95)", "accessibility (100)", "best practices (100)", "SEO (100)", "axe violations (0)", "met"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
const load = `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`;
process.stdout.write(`\nlp page quality: Lighthouse 13 (mobile preset) and axe-core in Chromium, ${load}\n\n`);
process.stdout.write([line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n") + "\n");
process.stdout.write(`\n${missed === 0 ? "every target met" : `${missed} page(s) missed a target`}; screenshots in ${SHOTS}/\n`);
process.exit(missed === 0 ? 0 : 1);
