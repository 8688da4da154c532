import { availableParallelism } from "node:os";
import { type Child } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { runLoad, warmUp, type LoadOptions } from "../lib/load.js";
import { fmt, type Row } from "../lib/table.js";
import { describeLoop, worstLoop, type LoopDelay } from "../lib/loop-delay.js";
import { POST_BODY, startBenchRedis, startLpOnRedis, redisMissing, type LpInfo } from "./redis-tools.js";

/** Connections over the whole cluster, split evenly between its processes, so only the process count changes. */
const CONNECTIONS = 16;

/**
 * Aggregate throughput of 1, 2 and 4 `lp serve` processes on one Redis: GET one product and POST product,
 * every process driven at once, the figures summed. The ratio to one process is what counts, and it is
 * bounded by the cores of the machine (printed), which the processes, Redis and the load generator share.
 */
export async function runRedisScale(ctx: BenchContext): Promise<Row[]> {
  const missing = redisMissing("processes on one Redis");
  if (missing) return missing;
  const cores = availableParallelism();
  const rows: Row[] = [];
  const results: { processes: number; get: number; post: number; failed: number; loop: LoopDelay | null }[] = [];
  for (const processes of [1, 2, 4]) {
    ctx.log(`${processes} process(es) on one Redis (${cores} cores)`);
    const redis = await startBenchRedis("everysec");
    const children: Child<LpInfo>[] = [];
    try {
      // The first process seeds; the others join the same data.
      children.push(await startLpOnRedis(redis, ctx.small));
      for (let i = 1; i < processes; i++) children.push(await startLpOnRedis(redis, 0));
      const productId = children[0].info.productId;
      const connections = Math.max(1, Math.floor(CONNECTIONS / processes));
      const get = (info: LpInfo): LoadOptions => ({
        url: `${info.url}/v1/accounts/${info.account}/products/${productId}`,
        headers: { authorization: `Bearer ${info.token}` },
        connections,
        seconds: ctx.seconds,
      });
      const post = (info: LpInfo): LoadOptions => ({
        url: `${info.url}/v1/accounts/${info.account}/products`,
        method: "POST",
        headers: { authorization: `Bearer ${info.token}`, "content-type": "application/json" },
        body: POST_BODY,
        connections,
        seconds: ctx.seconds,
      });
      await Promise.all(children.map((c) => warmUp({ ...get(c.info), seconds: 1 })));
      const gets = await Promise.all(children.map((c) => c.loop.around(() => runLoad(get(c.info)))));
      const posts = await Promise.all(children.map((c) => c.loop.around(() => runLoad(post(c.info)))));
      const failed = [...gets, ...posts].reduce((n, r) => n + r.non2xx + r.errors, 0);
      // The worst process's figures over GET and POST.
      const loop = worstLoop(children.map((c) => c.loop.worst()));
      results.push({ processes, get: gets.reduce((n, r) => n + r.rps, 0), post: posts.reduce((n, r) => n + r.rps, 0), failed, loop });
    } finally {
      for (const child of children) await child.stop();
      await redis.dispose();
    }
  }
  const [one] = results;
  for (const r of results) {
    rows.push({
      scenario: `${r.processes} process(es) on one Redis, aggregate (${cores} cores)`,
      measured: `GET ${fmt(r.get)} req/s (${fmt(r.get / one.get, 2)}x), POST ${fmt(r.post)} req/s (${fmt(r.post / one.post, 2)}x)${r.failed ? `, ${r.failed} failed` : ""}`,
      loop: describeLoop(r.loop),
      target: "-",
      met: r.failed ? false : null,
    });
  }
  return rows;
}
