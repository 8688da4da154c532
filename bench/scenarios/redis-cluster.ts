import { spawn } from "node:child_process";
import type { BenchContext } from "../lib/context.js";
import { fmt, type Row } from "../lib/table.js";
import { BIN } from "../../cli/src/e2e/processes.js";
import { startCluster } from "../../test/cluster/cluster.js";
import { killSlotHolder } from "../../test/cluster/slot-recovery.js";
import { commandsPerRequest, POST_BODY, redisMissing, startBenchRedis, startLpOnRedis } from "./redis-tools.js";

/** Milliseconds until `lp serve` with `redisUrl` exits, and its exit code. */
function timeFailedStart(redisUrl: string): Promise<{ ms: number; code: number | null }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, "serve", "--storage", "redis", "--redis-url", redisUrl, "--port", "0", "--data-dir", `/tmp/lp-bench-start-${process.pid}`], { stdio: "ignore" });
  return new Promise((resolve) => child.on("exit", (code) => resolve({ ms: performance.now() - started, code })));
}

/**
 * What a cluster operator is promised (docs/scale-out.md): Redis commands per POST with and without an
 * Idempotency-Key (target: at most twice), how soon a SIGKILLed process's webhook concurrency slots are free
 * and its attempts made by a survivor (target: slots within 10 s), and how soon `lp serve` ends on a Redis
 * it cannot use (target: exit 1 within 5 s). Needs Debian's redis-server and a build (`npm run build`).
 */
export async function runRedisCluster(ctx: BenchContext): Promise<Row[]> {
  const missing = redisMissing("Redis cluster figures");
  if (missing) return missing;
  const rows: Row[] = [];
  const redis = await startBenchRedis("everysec");
  try {
    ctx.log("Redis commands per POST, with and without an Idempotency-Key");
    const lp = await startLpOnRedis(redis, 0);
    try {
      const info = lp.info;
      const post = { port: redis.port, url: `${info.url}/v1/accounts/${info.account}/products`, method: "POST" as const, headers: { authorization: `Bearer ${info.token}`, "content-type": "application/json" }, body: POST_BODY, requests: 1000 };
      const get = await commandsPerRequest({ port: redis.port, url: `${info.url}/v1/accounts/${info.account}/products/${info.productId}`, headers: { authorization: `Bearer ${info.token}` }, requests: 1000 });
      rows.push({ scenario: "Redis commands per GET product", measured: `${fmt(get.perRequest, 2)} (${get.breakdown})`, target: "-", met: get.non2xx === 0 ? null : false });
      const plain = await commandsPerRequest(post);
      const keyed = await commandsPerRequest({ ...post, idempotencyKeys: true });
      const ratio = keyed.perRequest / Math.max(plain.perRequest, 0.01);
      rows.push({ scenario: "Redis commands per POST product, plain", measured: `${fmt(plain.perRequest, 2)} (${plain.breakdown})`, target: "-", met: plain.non2xx === 0 ? null : false });
      rows.push({
        scenario: "Redis commands per POST product, fresh Idempotency-Key",
        measured: `${fmt(keyed.perRequest, 2)} (${keyed.breakdown}); ${fmt(ratio, 2)}x plain`,
        target: "<= 2x plain",
        met: Math.round(ratio * 10) / 10 <= 2 && keyed.non2xx === 0,
      });
    } finally {
      await lp.stop();
    }

    ctx.log("a SIGKILLed process holding every slot of an endpoint (4): slots freed, attempts taken over");
    const cluster = await startCluster({ processes: 1, redis });
    try {
      const seen = await killSlotHolder(cluster);
      rows.push({
        scenario: "SIGKILLed holder of an endpoint's 4 slots: slots free / survivor's first attempt / all 8 events delivered",
        measured: `${fmt(seen.freedMs / 1000, 1)} s / ${fmt(seen.firstAttemptMs / 1000, 1)} s / ${seen.allDeliveredMs < 0 ? `${seen.delivered} of ${seen.owed} in 20 s` : `${fmt(seen.allDeliveredMs / 1000, 1)} s`} after the kill`,
        target: "slots <= 10 s",
        met: seen.freedMs >= 0 && seen.freedMs <= 10_000 && seen.allDeliveredMs >= 0,
      });
    } finally {
      await cluster.stop();
    }

    ctx.log("lp serve on a Redis it cannot use: time to exit");
    const refused = await timeFailedStart("redis://127.0.0.1:1/0");
    const outOfRange = await timeFailedStart(`redis://127.0.0.1:${redis.port}/99`);
    // The slowest case: a TLS handshake nothing answers, which only the check's own bound ends.
    const silent = await timeFailedStart(`rediss://127.0.0.1:${redis.port}/0`);
    const all = [refused, outOfRange, silent];
    rows.push({
      scenario: "lp serve exits on: nothing at the port / database 99 of 16 / rediss:// on a plain port",
      measured: all.map((r) => `${fmt(r.ms / 1000, 2)} s (exit ${r.code})`).join(" / "),
      target: "exit 1 <= 5 s",
      met: all.every((r) => r.code === 1 && r.ms <= 5000),
    });
    return rows;
  } finally {
    await redis.dispose();
  }
}
