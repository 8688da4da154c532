import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { loopHookFlags, ROOT, startChild, type Child } from "../lib/child.js";
import { childProbe, describeLoop } from "../lib/loop-delay.js";
import type { BenchContext } from "../lib/context.js";
import { runLoad, warmUp } from "../lib/load.js";
import { median, fmt, type Row } from "../lib/table.js";
import { processCpuMs } from "../lib/proc-cpu.js";
import { runWrk, wrkAvailable } from "../lib/wrk.js";
import { pairedLogCost } from "./access-log-paired.js";

interface Served {
  url: string;
  headers: Record<string, string>;
  /** The `lp serve` process, whose event loop the bench watches (bench/lib/loop-hook.ts). */
  child?: ChildProcess;
  /** The server's process id (its CPU time is read from /proc). */
  pid?: number;
  stop(): Promise<void>;
}

/** The built `lp serve --storage memory` (stderr, with the access log, to a file as `2> serve.log` would), and one product to GET. */
async function serve(ctx: BenchContext, quiet: boolean): Promise<Served> {
  const log = join(ctx.tempDir("access-log"), "serve.log");
  const fd = openSync(log, "w");
  const args = [...(await loopHookFlags()), join(ROOT, "cli/dist/bin.js"), "serve", "--storage", "memory", "--port", "0", "--print-env", ...(quiet ? ["--quiet"] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", fd, "ipc"] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (/LP_ADMIN_KEY=\S+\n/.test(out)) resolve(Object.fromEntries(out.trim().split("\n").map((l) => l.split(/=(.*)/s).slice(0, 2))));
    });
    void exited.then(() => reject(new Error(`lp serve exited early; see ${log}`)));
  });
  const headers = { authorization: `Bearer ${env.LP_TOKEN}` };
  const base = `${env.LP_API_URL}/v1/accounts/${env.LP_ACCOUNT}/products`;
  const created = await fetch(base, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ title: "Bench", price: 1, product_type: "physical" }) });
  const { data } = (await created.json()) as { data: { id: string } };
  return {
    url: `${base}/${data.id}`,
    headers,
    child,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await exited;
      if (!quiet && statSync(log).size === 0) throw new Error("the access log stayed empty");
    },
  };
}

/**
 * What the access log costs: `lp serve` (memory) GET one product with the log on (the default, to a file)
 * and with `--quiet`, each against bare h3 in the same round, with wrk (-t1 -c32, a C load generator that
 * leaves the server most of the CPU) and with autocannon (in this Node process, sharing the cores).
 * Ratios are taken within each round (log on and --quiet take turns going first), and the median of three
 * rounds is kept. Beside throughput, the server's own CPU time per request (from /proc) with the log on and
 * with --quiet: the steadier measure of what the log costs when other work shares the cores.
 */
export async function runAccessLog(ctx: BenchContext): Promise<Row[]> {
  const withWrk = await wrkAvailable();
  if (!withWrk) ctx.log("access log: wrk is not installed (Debian package `wrk`); autocannon only");
  ctx.log("access log: lp serve (memory) with the log on and --quiet, against bare h3");
  const stops: Array<() => Promise<void>> = [];
  try {
    const bare: Child<{ url: string; path: string }> = await startChild("bench/servers/bare-h3.ts", {});
    stops.push(() => bare.stop());
    const on = await serve(ctx, false);
    stops.push(() => on.stop());
    const quiet = await serve(ctx, true);
    stops.push(() => quiet.stop());
    const targets = { bare: { url: `${bare.info.url}${bare.info.path}`, headers: {} as Record<string, string> }, on, quiet };
    for (const t of Object.values(targets)) await warmUp({ url: t.url, headers: t.headers, seconds: 1 });
    const seconds = Math.max(2, ctx.seconds - 2);
    const rows: Row[] = [];
    type Load = (t: { url: string; headers: Record<string, string> }) => Promise<{ rps: number; requests: number; failed: number }>;
    const wrk: Load = (t) => runWrk(t.url, seconds, t.headers);
    const cannon: Load = async (t) => {
      const r = await runLoad({ url: t.url, headers: t.headers, seconds, connections: 32 });
      return { rps: r.rps, requests: r.rps * seconds, failed: r.errors + r.non2xx };
    };
    /** CPU µs per request the server spent under `load` (null without /proc). */
    const cpuPerRequest = async (t: Served | typeof targets.bare, load: Load) => {
      const pid = "pid" in t ? t.pid : undefined;
      const before = pid ? processCpuMs(pid) : null;
      const result = await load(t);
      const after = pid ? processCpuMs(pid) : null;
      const us = before !== null && after !== null && result.requests > 0 ? ((after - before) * 1000) / result.requests : null;
      return { ...result, us };
    };
    const generators: Array<[string, Load]> = [...(withWrk ? [["wrk -t1 -c32", wrk] as [string, Load]] : []), ["autocannon -c32", cannon]];
    for (const [name, load] of generators) {
      // Windows of this generator's runs only, on the server with the access log on.
      const onLoop = childProbe(on.child!);
      const rounds: Array<Record<"bare" | "on" | "quiet", number>> = [];
      const cpu: Array<{ on: number; quiet: number }> = [];
      let failed = 0;
      for (let round = 0; round < 3; round++) {
        const r = { bare: 0, on: 0, quiet: 0 };
        const us = { on: Number.NaN, quiet: Number.NaN };
        const order = round % 2 === 0 ? (["bare", "on", "quiet"] as const) : (["bare", "quiet", "on"] as const);
        for (const key of order) {
          const result = key === "on" ? await onLoop.around(() => cpuPerRequest(targets[key], load)) : await cpuPerRequest(targets[key], load);
          r[key] = result.rps;
          if (key !== "bare" && result.us !== null) us[key] = result.us;
          failed += result.failed;
        }
        rounds.push(r);
        if (Number.isFinite(us.on) && Number.isFinite(us.quiet)) cpu.push(us);
      }
      const ratio = (a: "on" | "quiet", b: "bare" | "quiet") => median(rounds.map((r) => r[a] / r[b]));
      const cost = 1 - ratio("on", "quiet");
      rows.push(
        { scenario: `${name}: bare h3 GET from a Map`, measured: `${fmt(median(rounds.map((r) => r.bare)))} req/s`, target: "-", met: null },
        { scenario: `${name}: lp serve GET one (memory), log on / bare`, measured: `${fmt(ratio("on", "bare"), 2)} (--quiet ${fmt(ratio("quiet", "bare"), 2)})`, loop: describeLoop(onLoop.worst()), target: "-", met: null },
        { scenario: `${name}: access log cost (1 - on / --quiet)`, measured: `${fmt(cost * 100, 1)}% (rounds ${rounds.map((r) => fmt((1 - r.on / r.quiet) * 100, 1)).join("/")}%)`, target: "<= 5%", met: cost <= 0.05 && failed === 0 },
      );
      if (cpu.length > 0) {
        const on = median(cpu.map((c) => c.on));
        const off = median(cpu.map((c) => c.quiet));
        const cpuCost = median(cpu.map((c) => c.on / c.quiet - 1));
        rows.push({
          scenario: `${name}: server CPU per request, log on / --quiet`,
          measured: `${fmt(on, 1)} / ${fmt(off, 1)} µs: ${fmt(cpuCost * 100, 1)}% (rounds ${cpu.map((c) => fmt((c.on / c.quiet - 1) * 100, 1)).join("/")}%)`,
          target: "<= 5%",
          met: cpuCost <= 0.05 && failed === 0,
        });
      }
    }
    if (withWrk) rows.push(...(await pairedLogCost(on, quiet, seconds, ctx.quick ? 3 : 5, ctx.tempDir("access-log-micro"))));
    return rows;
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error: Error) => ctx.log(`access log: ${error.message}`));
  }
}
