/**
 * The first list after a restart, at scale: `npx tsx bench/list-restart.ts [count]` (default 100000; build first:
 * it runs the built CLI). For fs and Redis, writes `count` products into one account, then starts a real
 * `lp serve` twice: once with no persisted index (built from the records) and once after a clean stop (restored
 * from the persisted index). Each time it prints the first `GET /products?per_page=20`, the slowest `/healthz`
 * asked every few milliseconds meanwhile, and the longest event-loop block of the server process from Ready to
 * a second after that list (perf_hooks monitorEventLoopDelay, through a module preloaded with --import).
 * One-off, not in `npm run bench`; figures in docs/performance.md. Starts its own redis-server.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startRedisServer } from "../core/src/testing/redis-server.js";
import { seedFsProducts, seedRedisProducts, spawnServe, stopServe, type ServedLp } from "./lib/restart-seed.js";

const count = Number(process.argv[2] ?? 100_000);
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

async function serve(args: string[], tag: string): Promise<Running> {
  const eld = join(work, `eld-${tag}.json`);
  const served = await spawnServe(root, work, args, ["--import", probe], { LP_BENCH_ELD: eld });
  await new Promise((r) => setTimeout(r, 100));
  return { ...served, eld };
}

const stop = (running: Running) => stopServe(running.child);

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
  return `first list ${first.toFixed(0)} ms, /healthz max ${healthMax.toFixed(0)} ms, event loop max block ${eld.max.toFixed(0)} ms, second list ${(performance.now() - t2).toFixed(1)} ms`;
}

async function run(kind: "fs" | "redis", args: string[], seed: (account: string) => Promise<void>) {
  const lines: string[] = [];
  const first = await serve(args, `${kind}-0`);
  const account = first.env.LP_ACCOUNT!;
  await stop(first);
  await seed(account);
  const rebuilt = await serve(args, `${kind}-1`);
  lines.push(`${kind}, ${count} products, no persisted index (built from the records): ${await measure(rebuilt)}`);
  await stop(rebuilt);
  const restored = await serve(args, `${kind}-2`);
  lines.push(`${kind}, ${count} products, after a clean stop (persisted index): ${await measure(restored)}`);
  await stop(restored);
  return lines;
}

const rows: string[] = [];
try {
  const dataDir = join(work, "fs-data");
  rows.push(
    ...(await run("fs", ["--storage", "fs", "--data-dir", dataDir], async (account) => seedFsProducts(dataDir, account, count))),
  );
  const redis = await startRedisServer({ appendfsync: "everysec" });
  try {
    const redisDir = join(work, "redis-data");
    rows.push(
      ...(await run("redis", ["--storage", "redis", "--redis-url", redis.url, "--data-dir", redisDir], (account) => seedRedisProducts(redis.url, account, count))),
    );
  } finally {
    await redis.dispose();
  }
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
const load = `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`;
process.stdout.write(`first list after a restart (built CLI, one account; ${load})\n${rows.join("\n")}\n`);
