/**
 * Profiles GET one product: `npx tsx bench/profile-get.ts [memory|fs|bare] [seconds]`. Runs the bundled lp
 * server under `node --cpu-prof`, drives it with autocannon (10 connections), stops it, and prints the
 * self time of the top functions and a per-request breakdown by area (one-off; not in `npm run bench`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle } from "./lib/bundle.js";
import { runLoad } from "./lib/load.js";
import { ROOT } from "./lib/root.js";
import { summarise } from "./lib/cpu-profile.js";

const storage = process.argv[2] === "fs" ? "fs" : process.argv[2] === "bare" ? "bare" : "memory";
const seconds = Number(process.argv[3] ?? 5);
const profDir = mkdtempSync(join(tmpdir(), "lp-prof-"));
const dataDir = mkdtempSync(join(tmpdir(), "lp-prof-data-"));
const file = await bundle(storage === "bare" ? "bench/servers/bare-h3.ts" : "bench/servers/lp-server.ts");
const child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profDir}`, file], {
  cwd: ROOT,
  env: { ...process.env, BENCH_STORAGE: storage, BENCH_DIR: dataDir, BENCH_SEED: "1000" },
  stdio: ["ignore", "pipe", "inherit"],
});
const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
const info = await new Promise<{ url: string; account: string; token: string; productId: string; path?: string }>((resolve) => {
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    const line = out.split("\n").find((l) => l.startsWith("{"));
    if (line) resolve(JSON.parse(line));
  });
});
const url = info.path ? `${info.url}${info.path}` : `${info.url}/v1/accounts/${info.account}/products/${info.productId}`;
const result = await runLoad({ url, seconds, headers: { authorization: `Bearer ${info.token}` } });
child.kill("SIGTERM");
await exited;
const profile = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]), "utf8"));
const requests = result.rps * seconds;
process.stdout.write(`${storage}: ${Math.round(result.rps)} req/s over ${seconds} s, non-2xx ${result.non2xx}\n\n${summarise(profile, requests)}\n`);
rmSync(profDir, { recursive: true, force: true });
rmSync(dataDir, { recursive: true, force: true });
