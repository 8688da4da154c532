/**
 * Profiles one request kind of a bundled lp server under `node --cpu-prof`, driven by autocannon (10
 * connections): `npx tsx bench/profile-get.ts [mode] [seconds]`. Modes: GET one product `memory|sqlite|bare`
 * (bare h3 from a Map); a deployed site's GET `site` (memory), `site-sqlite`, `site-bare` (bare h3 serving the
 * same bytes); POST product `post` (memory), `post-sqlite`. Prints the self time of the top functions and a
 * per-request breakdown by area of the main thread, where node:sqlite runs every statement too; the CPU per
 * request of any other JavaScript thread beside it (`--cpu-prof` writes one profile per thread; lp starts
 * none of its own). One-off; not in `npm run bench`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle } from "../core/src/testing/bundle-entry.js";
import { runLoad } from "./lib/load.js";
import { ROOT } from "./lib/root.js";
import { summarise, threadBusyUs } from "./lib/cpu-profile.js";

const mode = process.argv[2] ?? "memory";
const site = mode.startsWith("site");
const post = mode.startsWith("post");
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

if (post && storage === "bare") throw new Error("POST has no bare mode: use post or post-sqlite");
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
const products = `${info.url}/v1/accounts/${info.account}/products`;
const url = info.path ? `${info.url}${info.path}` : post ? products : `${products}/${info.productId}`;
const headers: Record<string, string> = { authorization: `Bearer ${info.token}`, ...(post ? { "content-type": "application/json" } : {}) };
const body = post ? JSON.stringify({ title: "Profiled product", price: 19.99, product_type: "physical", description: "Made by autocannon" }) : undefined;
// The profile covers the whole process: only the samples taken during the load are counted.
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const from = monotonicUs();
const result = await runLoad({ url, seconds, headers, method: post ? "POST" : "GET", body });
const window = [from, monotonicUs()] as const;
child.kill("SIGTERM");
await exited;
// One profile per thread, named CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main one.
const files = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"));
const threadOf = (f: string) => Number(f.split(".")[4]);
const main = files.find((f) => threadOf(f) === 0) ?? files[0]!;
const requests = result.rps * seconds;
const lines = [`${mode}: ${Math.round(result.rps)} req/s over ${seconds} s, non-2xx ${result.non2xx}`, "", summarise(JSON.parse(readFileSync(join(profDir, main), "utf8")), requests, window)];
for (const other of files.filter((f) => f !== main)) {
  const profile = JSON.parse(readFileSync(join(profDir, other), "utf8"));
  // Its areas would be named after the main thread's: only its functions are shown.
  const own = summarise(profile, requests, window).split("\n");
  lines.push("", `thread ${threadOf(other)}: busy CPU per request ${(threadBusyUs(profile, window) / requests).toFixed(1)} µs`, ...own.slice(own.indexOf("µs/req  function (self time)"), own.indexOf("µs/req  function (self time)") + 12));
}
process.stdout.write(`${lines.join("\n")}\n`);
rmSync(profDir, { recursive: true, force: true });
rmSync(dataDir, { recursive: true, force: true });
