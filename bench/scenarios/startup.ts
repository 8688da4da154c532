import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "../lib/root.js";
import type { BenchContext } from "../lib/context.js";
import { processCpuMs } from "../lib/proc-cpu.js";
import { median, fmt, type Row } from "../lib/table.js";

const CLI = join(ROOT, "cli/dist/bin.js");
/**
 * `lp serve` on the embedded store must start no slower than the file-per-record store did: 543 ms in the
 * last whole run on it (issue 39), above the 500 ms this row had before.
 */
const SERVE_TARGET_MS = 543;
/** Wall time of a command run to completion, in ms. */
function timeRun(args: string[]): number {
  const t0 = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: "ignore" });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${result.status}`);
  return performance.now() - t0;
}

/**
 * Spawns a server command and returns the ms from spawn to the first 200 on /healthz. The command
 * prints `LP_API_URL=<url>` once it listens; polling starts then (benchmark code, not a test). Also the CPU
 * time (user + system, /proc) the process had used by then: it moves less than wall time when other work
 * shares the cores. `command` is Node unless given (the single executable: bench/exe-startup.ts).
 */
export async function timeToFirst200(args: string[], env: Record<string, string> = {}, command = process.execPath): Promise<{ ms: number; cpu: number | null }> {
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1", ...env } });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      const timer = setTimeout(() => reject(new Error(`no URL from ${args.join(" ")}`)), 30_000);
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const match = /LP_API_URL=(\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      void exited.then(() => reject(new Error(`${args.join(" ")} exited before listening`)));
    });
    for (;;) {
      const res = await fetch(`${url}/healthz`).catch(() => null);
      if (res?.status === 200) {
        await res.arrayBuffer();
        return { ms: performance.now() - t0, cpu: processCpuMs(child.pid!) };
      }
      await res?.arrayBuffer();
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

/** Process start-up: bare node against the CLI, and spawn-to-first-200 of the server. */
export async function runStartup(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const runs = ctx.quick ? 5 : 11;
  ctx.log("start-up times");
  const bare = median(Array.from({ length: runs }, () => timeRun(["-e", "0"])));
  rows.push({ scenario: "node -e 0", measured: `${fmt(bare)} ms`, target: "-", met: null });
  if (existsSync(CLI)) {
    const version = median(Array.from({ length: runs }, () => timeRun([CLI, "--version"])));
    rows.push({ scenario: "node cli/dist/bin.js --version", measured: `${fmt(version)} ms (${fmt(version / bare, 2)}x node -e 0)`, target: "<= 1.5x node -e 0", met: version <= 1.5 * bare });
  } else {
    rows.push({ scenario: "node cli/dist/bin.js --version", measured: "not built", target: "<= 1.5x node -e 0", met: null });
  }

  const serveRuns = ctx.quick ? 3 : 9;
  /** Median wall and CPU time to the first 200 over `serveRuns` starts, as a table cell. */
  const timed = async (args: () => string[]) => {
    const runs: Array<{ ms: number; cpu: number | null }> = [];
    for (let i = 0; i < serveRuns; i++) runs.push(await timeToFirst200(args()));
    const ms = median(runs.map((r) => r.ms));
    const cpu = runs.every((r) => r.cpu !== null) ? median(runs.map((r) => r.cpu!)) : null;
    return { ms, measured: `${fmt(ms)} ms${cpu === null ? "" : ` (CPU ${fmt(cpu)} ms)`}` };
  };
  // What a test suite gets: a fresh node process that imports @lp/cli/testing and awaits startLp() (a server,
  // its client and a registered webhook receiver). The issue asks for "well under a second": 750 ms here.
  const TESTING = join(ROOT, "cli/dist/testing.js");
  const startLpRow = "startLp() from @lp/cli/testing (new process, memory) to first 200";
  if (existsSync(TESTING)) {
    const entry = `const { startLp } = await import(${JSON.stringify(TESTING)}); const lp = await startLp(); process.stdout.write("LP_API_URL=" + lp.url + "\\n"); process.once("SIGTERM", () => void lp.close());`;
    const { ms, measured } = await timed(() => ["--input-type=module", "-e", entry]);
    rows.push({ scenario: startLpRow, measured, target: "<= 750 ms", met: ms <= 750 });
  } else {
    rows.push({ scenario: startLpRow, measured: "not built", target: "<= 750 ms", met: null });
  }
  // What each test of a suite pays when it starts its own server: startLp() in this process (its migrations on
  // `:memory:`, its receiver registered), one product created through its client, and its close.
  if (existsSync(TESTING)) {
    const { startLp } = (await import(pathToFileURL(TESTING).href)) as typeof import("../../cli/src/start-lp/start-lp.js");
    const cycle = async () => {
      const t0 = performance.now();
      const lp = await startLp();
      await lp.client.products.create({ title: "Apron", price: 42, product_type: "physical" });
      await lp.close();
      return performance.now() - t0;
    };
    for (let i = 0; i < 5; i++) await cycle();
    const times: number[] = [];
    for (let i = 0; i < (ctx.quick ? 20 : 50); i++) times.push(await cycle());
    const ms = median(times);
    const sorted = [...times].sort((a, b) => a - b);
    rows.push({ scenario: "startLp() + one create + close, in process (memory)", measured: `median ${fmt(ms, 1)} ms, p90 ${fmt(sorted[Math.floor(sorted.length * 0.9)], 1)} ms over ${times.length}`, target: "<= 10 ms", met: ms <= 10 });
  }
  const serveRow = "lp serve (cli/dist, sqlite) spawn to first 200";
  if (existsSync(CLI)) {
    const { ms, measured } = await timed(() => [CLI, "serve", "--port", "0", "--data-dir", ctx.tempDir("serve"), "--print-env", "--quiet"]);
    rows.push({ scenario: serveRow, measured, target: `<= ${SERVE_TARGET_MS} ms`, met: ms <= SERVE_TARGET_MS });
  } else {
    rows.push({ scenario: serveRow, measured: "not built", target: `<= ${SERVE_TARGET_MS} ms`, met: null });
  }
  return rows;
}
