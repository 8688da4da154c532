/**
 * The first list after a restart, at scale: `npx tsx bench/list-restart.ts [count]` (default 100000; build
 * first: it runs the built CLI). Writes `count` products into one account, then starts a real `lp serve` on
 * SQLite after a clean stop, and again after a few hundred products were created, renamed and deleted
 * through the API and the server killed with SIGKILL. Each time it
 * prints the first `GET /products?per_page=20`, the slowest `/healthz` asked every few milliseconds meanwhile,
 * the longest event-loop block of the server process from Ready to a second after that list (perf_hooks
 * monitorEventLoopDelay, through a module preloaded with --import), and the server's RSS after a list by
 * title as well (read from the database's index of titles). One-off, not in `npm run bench`; figures in docs/performance.md.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { restartProduct, seedSqliteProducts, spawnServe, stopServe, type ServedLp } from "./lib/restart-seed.js";

const count = Number(process.argv[2] ?? 100_000);
/** Products deleted, renamed and created (in that order: the account's product quota is full) before the kill of the second row. */
const CHURN = { remove: 300, rename: 200, create: 200 };
const root = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "list-restart-"));
const probe = join(work, "probe.mjs");
// Reset on the first SIGUSR2 (the server is ready), report on the second.
writeFileSync(
  probe,
  `import { monitorEventLoopDelay } from "node:perf_hooks";
import { writeFileSync } from "node:fs";
const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
let armed = false;
process.on("SIGUSR2", () => {
  if (!armed) { h.reset(); armed = true; return; }
  writeFileSync(process.env.LP_BENCH_ELD, JSON.stringify({ max: h.max / 1e6, p99: h.percentile(99) / 1e6 }));
});
`,
);

interface Running extends ServedLp {
  eld: string;
}

/** Servers started and not exited yet: a failed run kills them, so none outlives the bench. */
const live = new Set<Running["child"]>();

async function serve(args: string[], tag: string): Promise<Running> {
  const eld = join(work, `eld-${tag}.json`);
  const served = await spawnServe(root, work, args, ["--import", probe], { LP_BENCH_ELD: eld });
  live.add(served.child);
  served.child.once("exit", () => live.delete(served.child));
  await new Promise((r) => setTimeout(r, 100));
  return { ...served, eld };
}

const stop = (running: Running) => stopServe(running.child);

/** Deletes, renames and creates products through the API, 8 requests at a time, then kills the server with SIGKILL. */
async function churnThenKill(running: Running) {
  const base = `${running.url}/v1/accounts/${running.env.LP_ACCOUNT}/products`;
  const headers = { authorization: `Bearer ${running.env.LP_TOKEN}`, "content-type": "application/json" };
  const idOf = (i: number) => restartProduct(running.env.LP_ACCOUNT!, i).id;
  const calls: (() => Promise<Response>)[] = [];
  for (let i = 0; i < CHURN.remove; i++) calls.push(() => fetch(`${base}/${idOf(count - 1 - i * 3)}`, { method: "DELETE", headers }));
  for (let i = 0; i < CHURN.rename; i++) calls.push(() => fetch(`${base}/${idOf((i * 97) % count)}`, { method: "PATCH", headers, body: JSON.stringify({ title: `Renamed ${i}` }) }));
  for (let i = 0; i < CHURN.create; i++) calls.push(() => fetch(base, { method: "POST", headers, body: JSON.stringify({ title: `Churn ${i}`, price: 12, product_type: "physical", images: [] }) }));
  try {
    for (let at = 0; at < calls.length; at += 8) {
      for (const res of await Promise.all(calls.slice(at, at + 8).map((call) => call()))) {
        const body = await res.text();
        if (!res.ok) throw new Error(`a write answered ${res.status}: ${body}`);
      }
    }
  } finally {
    const exited = new Promise((r) => running.child.once("exit", r));
    running.child.kill("SIGKILL");
    await exited;
  }
}

/** The first list, /healthz polled meanwhile, and the process's longest event-loop block. */
async function measure(running: Running) {
  running.child.kill("SIGUSR2");
  await new Promise((r) => setTimeout(r, 50));
  const auth = { authorization: `Bearer ${running.env.LP_TOKEN}` };
  let listing = true;
  let healthMax = 0;
  const health = (async () => {
    while (listing) {
      const t = performance.now();
      await fetch(`${running.url}/healthz`).then((r) => r.text());
      healthMax = Math.max(healthMax, performance.now() - t);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const t = performance.now();
  const res = await fetch(`${running.url}/v1/accounts/${running.env.LP_ACCOUNT}/products?per_page=20`, { headers: auth });
  const body = (await res.json()) as { data: unknown[] };
  const first = performance.now() - t;
  listing = false;
  await health;
  if (res.status !== 200 || body.data.length !== 20) throw new Error(`list answered ${res.status} with ${body.data?.length} items`);
  await new Promise((r) => setTimeout(r, 1000));
  running.child.kill("SIGUSR2");
  // The handler runs when the server's loop gets to it.
  for (let i = 0; i < 200 && !existsSync(running.eld); i++) await new Promise((r) => setTimeout(r, 50));
  const eld = JSON.parse(readFileSync(running.eld, "utf8")) as { max: number };
  const t2 = performance.now();
  await fetch(`${running.url}/v1/accounts/${running.env.LP_ACCOUNT}/products?per_page=20`, { headers: auth }).then((r) => r.text());
  const second = performance.now() - t2;
  // After a list by title as well (another index of the database read), the RSS is the steady one.
  await fetch(`${running.url}/v1/accounts/${running.env.LP_ACCOUNT}/products?per_page=20&sort=title`, { headers: auth }).then((r) => r.text());
  const rss = Number(readFileSync(`/proc/${running.child.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
  return `first list ${first.toFixed(1)} ms, /healthz max ${healthMax.toFixed(0)} ms, event loop max block ${eld.max.toFixed(0)} ms, second list ${second.toFixed(1)} ms, RSS after a list by title ${rss.toFixed(0)} MB`;
}

async function run(kind: "sqlite", args: string[], seed: (account: string) => Promise<void>) {
  const lines: string[] = [];
  const first = await serve(args, `${kind}-0`);
  const account = first.env.LP_ACCOUNT!;
  await stop(first);
  await seed(account);
  const restored = await serve(args, `${kind}-2`);
  lines.push(`${kind}, ${count} products, after a clean stop: ${await measure(restored)}`);
  await stop(restored);
  await churnThenKill(await serve(args, `${kind}-3`));
  const killed = await serve(args, `${kind}-4`);
  const churn = `${CHURN.remove} deleted, ${CHURN.rename} renamed, ${CHURN.create} created`;
  lines.push(`${kind}, ${count} products, after kill -9 (${churn}): ${await measure(killed)}`);
  await stop(killed);
  return lines;
}

const rows: string[] = [];
try {
  const dataDir = join(work, "sqlite-data");
  rows.push(...(await run("sqlite", ["--storage", "sqlite", "--data-dir", dataDir], (account) => seedSqliteProducts(dataDir, account, count))));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  for (const child of live) child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
const load = `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`;
process.stdout.write(`first list after a restart (built CLI, one account; ${load})\n${rows.join("\n")}\n`);
