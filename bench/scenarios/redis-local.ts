import { startChild, type Child } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { runLoad, warmUp, type LoadResult } from "../lib/load.js";
import { median, fmt, type Row } from "../lib/table.js";
import { childProbe, describeLoop } from "../lib/loop-delay.js";
import { commandsPerRequest, measureRedisOps, POST_BODY, startBenchRedis, startLpOnRedis, redisMissing, type LpInfo } from "./redis-tools.js";
import type { RedisServer } from "../../core/src/testing/redis-server.js";

/**
 * One lp process on Redis against memory and the embedded store (SQLite) in the same run: GET one product (interleaved rounds, as
 * get-one.ts does) and POST product, Redis commands per request from `INFO commandstats` (DESIGN §12: aim
 * <= 2 per GET, <= 6 per POST), and the request rate one Redis could carry at the ops/s it measured here.
 */
export async function runRedisLocal(ctx: BenchContext): Promise<Row[]> {
  const missing = redisMissing("GET and POST product on Redis");
  if (missing) return missing;
  const children: Child<LpInfo>[] = [];
  const redises: RedisServer[] = [];
  try {
    ctx.log(`GET and POST product: lp on memory, sqlite and Redis, ${fmt(ctx.small)} products`);
    const memory = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "memory", BENCH_SEED: String(ctx.small) });
    children.push(memory);
    const sqlite = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "sqlite", BENCH_DIR: ctx.tempDir("redis-local"), BENCH_SEED: String(ctx.small) });
    children.push(sqlite);
    const redis = await startBenchRedis("everysec");
    redises.push(redis);
    const onRedis = await startLpOnRedis(redis, ctx.small);
    children.push(onRedis);
    const targets = { memory: memory.info, sqlite: sqlite.info, redis: onRedis.info };
    const getUrl = (info: LpInfo) => `${info.url}/v1/accounts/${info.account}/products/${info.productId}`;
    const postUrl = (info: LpInfo) => `${info.url}/v1/accounts/${info.account}/products`;
    const auth = (info: LpInfo) => ({ authorization: `Bearer ${info.token}` });
    const post = (info: LpInfo) => ({ url: postUrl(info), method: "POST" as const, headers: { ...auth(info), "content-type": "application/json" }, body: POST_BODY });

    for (const info of Object.values(targets)) await warmUp({ url: getUrl(info), headers: auth(info), seconds: 1 });
    const seconds = Math.max(2, ctx.seconds - 2);
    const rounds: Record<string, LoadResult>[] = [];
    for (let round = 0; round < 3; round++) {
      const results: Record<string, LoadResult> = {};
      for (const [name, info] of Object.entries(targets)) {
        const load = () => runLoad({ url: getUrl(info), headers: auth(info), seconds });
        // The Redis process's event loop is the one these rows are about.
        results[name] = name === "redis" ? await onRedis.loop.around(load) : await load();
      }
      rounds.push(results);
    }
    const getRps = (name: string) => median(rounds.map((r) => r[name].rps));
    const ratio = (of: string) => median(rounds.map((r) => r.redis.rps / r[of].rps));
    const getFailed = rounds.some((r) => r.redis.non2xx + r.redis.errors > 0);
    const rows: Row[] = [
      {
        scenario: "GET one product: Redis (1 process) / memory / sqlite",
        measured: `${fmt(getRps("redis"))} / ${fmt(getRps("memory"))} / ${fmt(getRps("sqlite"))} req/s (Redis ${fmt(ratio("memory") * 100)}% of memory, ${fmt(ratio("sqlite") * 100)}% of sqlite)`,
        loop: describeLoop(onRedis.loop.worst()),
        target: "-",
        met: getFailed ? false : null,
      },
    ];

    const posts: Record<string, LoadResult> = {};
    // Windows of their own: the GET row's figures stay apart from the POST row's.
    const postLoop = childProbe(onRedis.child);
    for (const [name, info] of Object.entries(targets)) {
      await warmUp({ ...post(info), seconds: 1 });
      const load = () => runLoad({ ...post(info), seconds: ctx.seconds });
      posts[name] = name === "redis" ? await postLoop.around(load) : await load();
    }
    rows.push({
      scenario: "POST product: Redis everysec (1 process) / memory / sqlite",
      measured: `${fmt(posts.redis.rps)} / ${fmt(posts.memory.rps)} / ${fmt(posts.sqlite.rps)} req/s (Redis p50 ${posts.redis.p50} ms, p99 ${posts.redis.p99} ms)`,
      loop: describeLoop(postLoop.worst()),
      target: "-",
      met: posts.redis.non2xx + posts.redis.errors > 0 ? false : null,
    });

    // appendfsync always: every acknowledged write is on disk before the answer.
    const always = await startBenchRedis("always");
    redises.push(always);
    const onAlways = await startLpOnRedis(always, 0);
    children.push(onAlways);
    await warmUp({ ...post(onAlways.info), seconds: 1 });
    const strict = await onAlways.loop.around(() => runLoad({ ...post(onAlways.info), seconds: ctx.seconds }));
    rows.push({ scenario: "POST product: Redis appendfsync always (1 process)", measured: `${fmt(strict.rps)} req/s, p50 ${strict.p50} ms, p99 ${strict.p99} ms`, loop: describeLoop(onAlways.loop.worst()), target: "-", met: null });

    ctx.log("Redis commands per request (INFO commandstats)");
    const perGet = await commandsPerRequest({ port: redis.port, url: getUrl(onRedis.info), headers: auth(onRedis.info), requests: 2000 });
    const perPost = await commandsPerRequest({ port: redis.port, ...post(onRedis.info), requests: 1000 });
    // A request sends a whole number of commands; what the idle estimate (background workers, feed reads)
    // leaves over is noise of a few hundredths, so the target is judged on the figure to one decimal.
    const whole = (n: number) => Math.round(n * 10) / 10;
    rows.push({
      scenario: "Redis commands per GET product",
      measured: `${fmt(perGet.perRequest, 2)} (${perGet.breakdown}; idle ${fmt(perGet.idlePerSecond, 1)}/s subtracted)`,
      target: "<= 2",
      met: whole(perGet.perRequest) <= 2 && perGet.non2xx === 0,
    });
    rows.push({ scenario: "Redis commands per POST product", measured: `${fmt(perPost.perRequest, 2)} (${perPost.breakdown}; idle subtracted)`, target: "<= 6", met: whole(perPost.perRequest) <= 6 && perPost.non2xx === 0 });

    for (const child of children.splice(0)) await child.stop();
    ctx.log("redis-benchmark on a throwaway redis-server (everysec)");
    const ops = await measureRedisOps("everysec", ctx.quick ? 50_000 : 200_000);
    if (ops) {
      rows.push({
        scenario: "one Redis: ops/s (redis-benchmark GET / SET) -> API requests/s it could carry",
        measured: `${fmt(ops.get)} / ${fmt(ops.set)} ops/s -> ~${fmt(ops.get / Math.max(perGet.perRequest, 0.01))} GET/s or ~${fmt(ops.set / Math.max(perPost.perRequest, 0.01))} POST/s`,
        target: "-",
        met: null,
      });
    }
    return rows;
  } finally {
    for (const child of children) await child.stop();
    for (const redis of redises) await redis.dispose();
  }
}
