/**
 * How long `lp serve` takes from SIGTERM to exit, with no dashboard tab open and with one open in headless
 * Chromium (its live event stream connected). One-off: `npx tsx bench/dashboard-stop.ts [runs]` after
 * `npm run build`; needs Debian's chromium. Prints one line per case with the median and the spread.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";

const BIN = fileURLToPath(new URL("../cli/dist/bin.js", import.meta.url));
const runs = Number(process.argv[2] ?? 5);

/** Starts `lp serve` on a free port; resolves with its dashboard login URL and the process. */
function serve(dir: string): Promise<{ login: string; child: ReturnType<typeof spawn> }> {
  const child = spawn(process.execPath, [BIN, "serve", "--storage", "memory", "--port", "0", "--data-dir", dir, "--quiet"], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  return new Promise((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`lp serve did not start: ${err}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const login = /dashboard: (\S+)/.exec(err)?.[1];
      if (login) {
        clearTimeout(timer);
        resolve({ login, child });
      }
    });
  });
}

/** Milliseconds from SIGTERM to the process's exit. */
function stop(child: ReturnType<typeof spawn>): Promise<number> {
  const start = performance.now();
  return new Promise((resolve) => {
    child.once("exit", () => resolve(performance.now() - start));
    child.kill("SIGTERM");
  });
}

async function measure(browser: Browser | null): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), "lp-stop-"));
    const { login, child } = await serve(dir);
    const context = browser ? await browser.newContext() : null;
    if (context) {
      const page = await context.newPage();
      await page.goto(login);
      await page.locator('[data-live="open"]').waitFor({ timeout: 20_000 });
    }
    times.push(await stop(child));
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return times.sort((a, b) => a - b);
}

const summary = (name: string, t: number[]) =>
  `${name.padEnd(22)} median ${t[Math.floor(t.length / 2)].toFixed(0).padStart(6)} ms   min ${t[0].toFixed(0)}   max ${t[t.length - 1].toFixed(0)}   (${t.length} runs)`;

const browser = await chromium.launch({ executablePath: process.env.LP_CHROMIUM ?? "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
try {
  console.log(summary("no dashboard tab", await measure(null)));
  console.log(summary("one dashboard tab open", await measure(browser)));
} finally {
  await browser.close();
}
