import { rssMb, startChild } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { sampleLatency, type LatencyResult } from "../lib/latency.js";
import { runLoad, warmUp, type LoadResult } from "../lib/load.js";
import { fmt, type Row } from "../lib/table.js";
import { describeLoop, type LoopProbe } from "../lib/loop-delay.js";

interface LpInfo {
  url: string;
  account: string;
  token: string;
  firstListMs: number;
}

const BODY = JSON.stringify({ title: "Bench product", price: 19.99, product_type: "physical", description: "Made by autocannon" });

/** POST product on memory and on fs, the latter at a small and a large existing collection. */
export async function runWrites(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];

  ctx.log("POST on memory");
  const memory = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "memory", BENCH_SEED: String(ctx.small) });
  const mem = await measurePost(memory.info, ctx.seconds, memory.loop);
  await memory.stop();
  rows.push({ scenario: "POST product (memory)", measured: describe(mem), loop: describeLoop(memory.loop.worst()), target: "-", met: null });

  const fsRuns: { size: number; result: LoadResult; rss: number; list: LatencyResult; firstListMs: number; seedMs: number; loop: string }[] = [];
  for (const size of [ctx.small, ctx.large]) {
    const dir = ctx.tempDir(`fs${size}`);
    ctx.log(`seeding ${fmt(size)} products on fs`);
    const seeder = await startChild<{ seedMs: number }>("bench/servers/seed-fs.ts", { BENCH_DIR: dir, BENCH_SEED: String(size) }, 600_000);
    await seeder.stop();
    ctx.log(`POST on fs at ${fmt(size)}`);
    const server = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "sqlite", BENCH_DIR: dir, BENCH_SEED: "0" });
    const rss = rssMb(server.child.pid!);
    const listUrl = `${server.info.url}/v1/accounts/${server.info.account}/products?per_page=20`;
    const list = await sampleLatency(listUrl, { authorization: `Bearer ${server.info.token}` }, Math.min(ctx.seconds, 3));
    const result = await measurePost(server.info, ctx.seconds, server.loop);
    await server.stop();
    fsRuns.push({ size, result, rss, list, firstListMs: server.info.firstListMs, seedMs: seeder.info.seedMs, loop: describeLoop(server.loop.worst()) });
  }
  const [small, large] = fsRuns;
  rows.push({ scenario: `POST product (fs) at ${fmt(small.size)} records`, measured: describe(small.result), loop: small.loop, target: ">= 1,000 req/s", met: small.result.rps >= 1000 && small.result.non2xx === 0 });
  const flat = large.result.rps / small.result.rps;
  rows.push({
    scenario: `POST product (fs) at ${fmt(large.size)} records`,
    measured: `${describe(large.result)} (${fmt(flat * 100)}% of 1k)`,
    loop: large.loop,
    target: ">= 1,000 req/s, within 20% of 1k",
    met: large.result.rps >= 1000 && flat >= 0.8 && large.result.non2xx === 0,
  });
  rows.push({ scenario: `seed ${fmt(large.size)} products through the core (fs, no fsync)`, measured: `${fmt(large.seedMs / 1000, 1)} s`, target: "-", met: null });
  rows.push({ scenario: `first list at ${fmt(large.size)} (fs, cold index load)`, measured: `${fmt(large.firstListMs)} ms (1k: ${fmt(small.firstListMs)} ms)`, target: "-", met: null });
  rows.push({
    scenario: `list per_page=20 at ${fmt(large.size)} (fs, warm, sequential)`,
    measured: `p50 ${fmt(large.list.p50, 2)} ms (1k: ${fmt(small.list.p50, 2)} ms), p99 ${fmt(large.list.p99, 2)} ms`,
    target: "p50 <= 20 ms and <= 2x 1k",
    met: large.list.p50 <= 20 && large.list.p50 <= 2 * small.list.p50 && large.list.failures === 0,
  });
  rows.push({ scenario: `RSS at ${fmt(large.size)} products (fs storage, index loaded)`, measured: `${fmt(large.rss)} MB`, target: "<= 300 MB", met: large.rss <= 300 });
  return rows;
}

async function measurePost(info: LpInfo, seconds: number, probe: LoopProbe): Promise<LoadResult> {
  const options = {
    url: `${info.url}/v1/accounts/${info.account}/products`,
    method: "POST" as const,
    headers: { authorization: `Bearer ${info.token}`, "content-type": "application/json" },
    body: BODY,
    seconds,
  };
  await warmUp(options);
  return probe.around(() => runLoad(options));
}

const describe = (r: LoadResult) => `${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ""}`;
