/**
 * The single executable's start-up against the npm package's: `build/lp-<os>-<arch> serve` and
 * `node cli/dist/bin.js serve` (this Node), each on the embedded store in a fresh data dir, from spawn to
 * the first 200 of /healthz, in alternating rounds so both see the same machine; then `--version` of each,
 * and the executable's size. Target: the executable's median at most 1.2x the package's. `--node=PATH` runs the
 * package on that Node instead of this one (the executable's own Node line, to see the packaging alone).
 *
 *   npm run build && npm run build:exe && npx tsx bench/exe-startup.ts [rounds] [--node=PATH]
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib/root.js";
import { fmt, median } from "./lib/table.js";
import { timeToFirst200 } from "./scenarios/startup.js";

const TARGET_RATIO = 1.2;
const args = process.argv.slice(2);
const rounds = Math.min(50, Math.max(1, Number(args.find((a) => /^\d+$/.test(a))) || 9));
const NODE = args.find((a) => a.startsWith("--node="))?.slice("--node=".length) ?? process.execPath;
const os = process.platform === "win32" ? "win" : process.platform;
const EXE = join(ROOT, "build", `lp-${os}-${process.arch}${os === "win" ? ".exe" : ""}`);
const CLI = join(ROOT, "cli/dist/bin.js");
for (const [file, build] of [[EXE, "npm run build:exe"], [CLI, "npm run build"]]) {
  if (!existsSync(file)) throw new Error(`${file} is missing: run ${build} first.`);
}

const dirs = mkdtempSync(join(tmpdir(), "lp-exe-startup-"));
let n = 0;
const serve = () => ["serve", "--port", "0", "--data-dir", join(dirs, `d${n++}`), "--print-env", "--quiet"];
const exe: Array<{ ms: number; cpu: number | null }> = [];
const node: Array<{ ms: number; cpu: number | null }> = [];
try {
  // One start of each first, not counted: the first read of a 160 MB file from disk is not what a user sees twice.
  await timeToFirst200(serve(), {}, EXE);
  await timeToFirst200([CLI, ...serve()], {}, NODE);
  for (let i = 0; i < rounds; i++) {
    exe.push(await timeToFirst200(serve(), {}, EXE));
    node.push(await timeToFirst200([CLI, ...serve()], {}, NODE));
  }
} finally {
  rmSync(dirs, { recursive: true, force: true });
}

/** Median wall time of a command run to completion, in ms. */
function versionMs(command: string, args: string[]): number {
  return median(
    Array.from({ length: rounds }, () => {
      const t0 = performance.now();
      const result = spawnSync(command, args, { stdio: "ignore" });
      if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}`);
      return performance.now() - t0;
    }),
  );
}

const cell = (runs: Array<{ ms: number; cpu: number | null }>) => {
  const cpu = runs.every((r) => r.cpu !== null) ? ` (CPU ${fmt(median(runs.map((r) => r.cpu!)))} ms)` : "";
  return `${fmt(median(runs.map((r) => r.ms)))} ms${cpu}`;
};
const ratio = median(exe.map((r) => r.ms)) / median(node.map((r) => r.ms));
const exeVersion = spawnSync(EXE, ["--version"], { encoding: "utf8" }).stdout.trim();
const nodeVersion = spawnSync(NODE, ["--version"], { encoding: "utf8" }).stdout.trim();
console.log(`${exeVersion}; npm package on node ${nodeVersion}; ${rounds} alternating rounds, medians`);
console.log(`| what | single executable | node cli/dist/bin.js |`);
console.log(`| --- | --- | --- |`);
console.log(`| lp serve (sqlite) spawn to first 200 of /healthz | ${cell(exe)} | ${cell(node)} |`);
console.log(`| lp --version | ${fmt(versionMs(EXE, ["--version"]))} ms | ${fmt(versionMs(NODE, [CLI, "--version"]))} ms |`);
console.log(`| size | ${fmt(statSync(EXE).size / 1e6, 1)} MB | - |`);
console.log(`ratio ${fmt(ratio, 2)}x (target <= ${TARGET_RATIO}x): ${ratio <= TARGET_RATIO ? "met" : "NOT MET"}`);
