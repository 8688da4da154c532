import { rssMb, startChild } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { sampleLatency } from "../lib/latency.js";
import { fmt, type Row } from "../lib/table.js";
import type { LpInfo } from "../lib/lp-info.js";
import { describeLoop, type LoopProbe } from "../lib/loop-delay.js";

/** Reads: list latency at a small and a large collection (GET one product is get-one.ts). */
export async function runReads(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const seconds = ctx.seconds;

  ctx.log(`lp (memory) with ${fmt(ctx.small)} products`);
  const small = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "memory", BENCH_SEED: String(ctx.small) });
  const listSmall = await measureList(small.info, seconds, small.loop);
  await small.stop();

  ctx.log(`lp (memory) with ${fmt(ctx.large)} products (seeding through the core)`);
  const large = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "memory", BENCH_SEED: String(ctx.large) });
  // Footprint: read once the index is loaded (lp-server.ts) and collected, before the listing load, whose
  // transient garbage (an old generation not yet collected) moved the figure between 310 and 490 MB.
  const rss = rssMb(large.child.pid!);
  const listLarge = await measureList(large.info, seconds, large.loop);
  await large.stop();

  rows.push({ scenario: `list per_page=20 at ${fmt(ctx.small)} (sequential)`, measured: `p50 ${fmt(listSmall.p50, 2)} ms, p99 ${fmt(listSmall.p99, 2)} ms`, loop: describeLoop(small.loop.worst()), target: "-", met: null });
  const ratio = listLarge.p50 / Math.max(listSmall.p50, 0.01);
  rows.push({
    scenario: `list per_page=20 at ${fmt(ctx.large)} (sequential)`,
    measured: `p50 ${fmt(listLarge.p50, 2)} ms (${fmt(ratio, 2)}x 1k), p99 ${fmt(listLarge.p99, 2)} ms`,
    loop: describeLoop(large.loop.worst()),
    target: "p50 <= 20 ms and <= 2x 1k",
    met: listLarge.p50 <= 20 && listLarge.p50 <= 2 * listSmall.p50,
  });
  rows.push({ scenario: `seed ${fmt(ctx.large)} products through the core (memory)`, measured: `${fmt(large.info.seedMs / 1000, 1)} s`, target: "-", met: null });
  rows.push({ scenario: `RSS at ${fmt(ctx.large)} products (memory storage)`, measured: `${fmt(rss)} MB`, target: "<= 300 MB", met: rss <= 300 });
  return rows;
}

/** Default listing (newest first), one request at a time so latency is service time rather than queueing. */
async function measureList(info: LpInfo, seconds: number, probe: LoopProbe) {
  const url = `${info.url}/v1/accounts/${info.account}/products?per_page=20`;
  const headers = { authorization: `Bearer ${info.token}` };
  await sampleLatency(url, headers, 1);
  const result = await probe.around(() => sampleLatency(url, headers, seconds));
  if (result.failures) throw new Error(`${result.failures} listing requests failed`);
  return result;
}
