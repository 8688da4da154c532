/**
 * Profiles GET one product: `npx tsx bench/profile-get.ts [memory|fs|bare] [seconds]`, or a deployed site's
 * GET: `site` (memory), `site-fs`, `site-bare` (bare h3 serving the same bytes). Runs the bundled server
 * under `node --cpu-prof`, drives it with autocannon (10 connections), stops it, and prints the self time of
 * the top functions and a per-request breakdown by area (one-off; not in `npm run bench`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle } from "./lib/bundle.js";
import { runLoad } from "./lib/load.js";
import { ROOT } from "./lib/root.js";
import { summarise } from "./lib/cpu-profile.js";

const mode = process.argv[2] ?? "memory";
const site = mode.startsWith("site");
const storage = mode.endsWith("sqlite") ? "sqlite" : mode.endsWith("bare") ? "bare" : "memory";
const seconds = Number(process.argv[3] ?? 5);
const profDir = mkdtempSync(join(tmpdir(), "lp-prof-"));
const dataDir = mkdtempSync(join(tmpdir(), "lp-prof-data-"));
const lpFile = await bundle("bench/servers/lp-server.ts");
const env: NodeJS.ProcessEnv = { ...process.env, BENCH_STORAGE: storage, BENCH_DIR: dataDir, BENCH_SEED: "1000", BENCH_SITE: site ? "1" : "0" };

type Info = { url: string; account: string; token: string; productId: string; path?: string };
function start(file: string, args: string[], childEnv: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [...args, file], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const info = new Promise<Info>((resolve) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve(JSON.parse(line));
    });
  });
  return { child, exited, info };
}

if (site && storage === "bare") {
  // The ceiling serves the bytes lp's site serves: take them from an lp server that is not profiled.
  const lp = start(lpFile, [], { ...env, BENCH_STORAGE: "memory" });
  const lpInfo = await lp.info;
  writeFileSync(join(dataDir, "site.html"), await (await fetch(`${lpInfo.url}${lpInfo.path}`)).text());
  lp.child.kill("SIGTERM");
  await lp.exited;
  env.BENCH_SITE_HTML = join(dataDir, "site.html");
}
const file = storage === "bare" ? await bundle("bench/servers/bare-h3.ts") : lpFile;
const { child, exited, info: infoPromise } = start(file, ["--cpu-prof", `--cpu-prof-dir=${profDir}`], env);
const info = await infoPromise;
const url = info.path ? `${info.url}${info.path}` : `${info.url}/v1/accounts/${info.account}/products/${info.productId}`;
const result = await runLoad({ url, seconds, headers: { authorization: `Bearer ${info.token}` } });
child.kill("SIGTERM");
await exited;
const profile = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]), "utf8"));
const requests = result.rps * seconds;
process.stdout.write(`${mode}: ${Math.round(result.rps)} req/s over ${seconds} s, non-2xx ${result.non2xx}\n\n${summarise(profile, requests)}\n`);
rmSync(profDir, { recursive: true, force: true });
rmSync(dataDir, { recursive: true, force: true });
