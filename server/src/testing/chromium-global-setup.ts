import { chromium, type BrowserServer } from "playwright-core";
import type { TestProject } from "vitest/node";
import { browserAvailable, CHROMIUM, CHROMIUM_ARGS } from "./chromium.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The WebSocket address of the run's Chromium (absent when Chromium is not installed). */
    lpChromiumEndpoint?: string;
  }
}

let server: BrowserServer | null = null;

/**
 * Global setup of the `browser` project of vitest.config.ts: one headless Chromium for the whole run, which every
 * browser suite connects to (`launchBrowser()` in `server/src/dashboard/browser-harness.ts`) and works in contexts
 * of its own, so no suite pays for a start of the browser. Without Chromium nothing starts: the suites skip, or
 * fail under `LP_REQUIRE_BROWSER=1`, on their own.
 */
export async function setup(project: TestProject): Promise<void> {
  if (!browserAvailable) return;
  server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide("lpChromiumEndpoint", server.wsEndpoint());
}

/** Closes the browser (and whatever pages a failed suite left open in it). */
export async function teardown(): Promise<void> {
  await server?.close();
}
