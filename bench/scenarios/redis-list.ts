import type { BenchContext } from "../lib/context.js";
import { sampleLatency, type LatencyResult } from "../lib/latency.js";
import { fmt, type Row } from "../lib/table.js";
import { describeLoop, type LoopProbe } from "../lib/loop-delay.js";
import { startBenchRedis, startLpOnRedis, redisMissing, type LpInfo } from "./redis-tools.js";

/**
 * Default listing (newest first), one request at a time so latency is service time rather than queueing.
 * The process's first list, which loads its index from Redis, was timed by the server before it reported.
 */
async function measureList(info: LpInfo, seconds: number, probe: LoopProbe): Promise<LatencyResult & { firstMs: number; loop: string }> {
  const url = `${info.url}/v1/accounts/${info.account}/products?per_page=20`;
  const headers = { authorization: `Bearer ${info.token}` };
  await sampleLatency(url, headers, 1);
  const result = await probe.around(() => sampleLatency(url, headers, seconds));
  return { ...result, firstMs: info.firstListMs, loop: describeLoop(probe.worst()) };
}

/**
 * List p50 on Redis at 1k and at the large size (100k; 20k with --quick), each on its own redis-server,
 * seeded through one lp process (the products service, so indexes are what a real cluster builds), then
 * listed by a second process that never wrote: the index it serves from is the shared one.
 */
export async function runRedisList(ctx: BenchContext): Promise<Row[]> {
  const missing = redisMissing("list on Redis");
  if (missing) return missing;
  const figures: { size: number; list: LatencyResult & { firstMs: number; loop: string }; seedMs: number }[] = [];
  for (const size of [ctx.small, ctx.large]) {
    const redis = await startBenchRedis("everysec");
    try {
      ctx.log(`seeding ${fmt(size)} products on Redis through the core`);
      const seeder = await startLpOnRedis(redis, size);
      const reader = await startLpOnRedis(redis, 0);
      try {
        figures.push({ size, list: await measureList(reader.info, Math.min(ctx.seconds, 3), reader.loop), seedMs: seeder.info.seedMs });
      } finally {
        await reader.stop();
        await seeder.stop();
      }
    } finally {
      await redis.dispose();
    }
  }
  const [small, large] = figures;
  const ratio = large.list.p50 / Math.max(small.list.p50, 0.01);
  return [
    { scenario: `list per_page=20 at ${fmt(small.size)} (Redis, another process)`, measured: `p50 ${fmt(small.list.p50, 2)} ms, p99 ${fmt(small.list.p99, 2)} ms`, loop: small.list.loop, target: "-", met: small.list.failures === 0 ? null : false },
    {
      scenario: `list per_page=20 at ${fmt(large.size)} (Redis, another process)`,
      measured: `p50 ${fmt(large.list.p50, 2)} ms (${fmt(ratio, 2)}x 1k), p99 ${fmt(large.list.p99, 2)} ms`,
      loop: large.list.loop,
      target: "p50 <= 20 ms and <= 2x 1k",
      met: large.list.p50 <= 20 && large.list.p50 <= 2 * small.list.p50 && large.list.failures === 0,
    },
    { scenario: `first list of a process at ${fmt(large.size)} (Redis, index load)`, measured: `${fmt(large.list.firstMs)} ms (1k: ${fmt(small.list.firstMs)} ms)`, target: "-", met: null },
    { scenario: `seed ${fmt(large.size)} products through the core (Redis)`, measured: `${fmt(large.seedMs / 1000, 1)} s`, target: "-", met: null },
  ];
}
