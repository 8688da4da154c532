import { existsSync } from "node:fs";

/** Debian's Chromium, or `LP_CHROMIUM`. */
export const CHROMIUM = process.env.LP_CHROMIUM ?? "/usr/bin/chromium";
/** Whether the browser suites can run here; they fail instead of skipping under `LP_REQUIRE_BROWSER=1`. */
export const browserAvailable = existsSync(CHROMIUM);
/** Headless, no sandbox (containers), no GPU, and no traffic of the browser's own. */
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"];
