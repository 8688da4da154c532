import { spawnSync } from "node:child_process";
import autocannon from "autocannon";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer, type StartRedisOptions } from "../../core/src/testing/redis-server.js";
import { startChild, type Child } from "../lib/child.js";
import type { Row } from "../lib/table.js";
import type { LpInfo } from "../lib/lp-info.js";

/** The row a Redis scenario prints instead of figures when redis-server cannot be run here; null when it can. */
export function redisMissing(scenario: string): Row[] | null {
  return redisAvailable ? null : [{ scenario, measured: redisSkipReason(scenario), target: "-", met: null }];
}

export type { LpInfo };

/** A product body the POST figures send. */
export const POST_BODY = JSON.stringify({ title: "Bench product", price: 19.99, product_type: "physical", description: "Made by autocannon" });

/** Starts a redis-server for a scenario (AOF on; `everysec` unless said otherwise). */
export function startBenchRedis(appendfsync: StartRedisOptions["appendfsync"] = "everysec"): Promise<RedisServer> {
  return startRedisServer({ appendfsync });
}

/** Starts `lp serve --storage redis` (the bench's server child) on `redis`, first creating `seed` products through it. */
export function startLpOnRedis(redis: RedisServer, seed: number): Promise<Child<LpInfo>> {
  return startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "redis", BENCH_REDIS_URL: redis.url, BENCH_SEED: String(seed) }, 900_000);
}

function redisCli(port: number, ...args: string[]): string {
  const run = spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`redis-cli ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

/** Calls of each command Redis has executed so far, from `INFO commandstats` (the INFO calls themselves left out). */
export function commandsByName(port: number): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of redisCli(port, "INFO", "commandstats").matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (match[1] !== "info") calls.set(match[1], Number(match[2]));
  return calls;
}

/** Commands Redis has executed so far. */
export const commandsSoFar = (port: number) => [...commandsByName(port).values()].reduce((sum, n) => sum + n, 0);

/** Options of {@link commandsPerRequest}. */
export interface CommandCount {
  port: number;
  url: string;
  headers: Record<string, string>;
  method?: "GET" | "POST";
  body?: string;
  requests: number;
  /** Send a fresh `Idempotency-Key` with every request. */
  idempotencyKeys?: boolean;
}

/**
 * Redis commands per API request: `INFO commandstats` before and after `requests` requests (10 connections),
 * less what the processes send on their own while idle (queue workers, change feed) over the same time.
 */
export async function commandsPerRequest(options: CommandCount): Promise<{ perRequest: number; idlePerSecond: number; non2xx: number; breakdown: string }> {
  const idleStart = commandsSoFar(options.port);
  const idleT0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idlePerSecond = ((commandsSoFar(options.port) - idleStart) * 1000) / (performance.now() - idleT0);

  const before = commandsByName(options.port);
  const t0 = performance.now();
  let sent = 0;
  const fresh = options.idempotencyKeys
    ? { requests: [{ setupRequest: (req: { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, "idempotency-key": `bench-${process.pid}-${Date.now()}-${sent++}` } }) }] }
    : {};
  const result = await autocannon({ url: options.url, method: options.method ?? "GET", headers: options.headers, body: options.body, amount: options.requests, connections: 10, ...fresh } as autocannon.Options);
  const seconds = (performance.now() - t0) / 1000;
  const after = commandsByName(options.port);
  const delta = [...after].map(([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / options.requests] as const).filter(([, n]) => n >= 0.05);
  const breakdown = delta.sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${n.toFixed(2).replace(/\.00$/, "")}`).join(", ");
  const used = [...after.values()].reduce((a, b) => a + b, 0) - [...before.values()].reduce((a, b) => a + b, 0) - idlePerSecond * seconds;
  return { perRequest: Math.max(0, used) / options.requests, idlePerSecond, non2xx: result.non2xx + result.errors, breakdown };
}

/**
 * The operations per second a redis-server with the same settings carries on this machine, measured with
 * `redis-benchmark` (shipped with Debian's redis-server) on a throwaway server, so its keys never mix with
 * lp's: GET and SET of 512-byte values from 50 clients, no pipelining. Null when redis-benchmark is missing.
 */
export async function measureRedisOps(appendfsync: StartRedisOptions["appendfsync"], requests: number): Promise<{ get: number; set: number } | null> {
  const redis = await startRedisServer({ appendfsync });
  try {
    const args = ["-p", String(redis.port), "-q", "-n", String(requests), "-c", "50", "-t", "get,set", "-d", "512"];
    const run = spawnSync("redis-benchmark", args, { encoding: "utf8" });
    if (run.status !== 0) return null;
    const text = run.stdout.replace(/\r/g, "\n");
    const rate = (name: string) => Number(new RegExp(`^${name}: ([\\d.]+) requests per second`, "m").exec(text)?.[1] ?? NaN);
    return { get: rate("GET"), set: rate("SET") };
  } finally {
    await redis.dispose();
  }
}
