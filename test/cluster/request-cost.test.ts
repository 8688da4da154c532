import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason } from "../../core/src/testing/redis-server.js";
import type { Cluster } from "./cluster.js";
import { useCluster } from "./use-cluster.js";

if (!redisAvailable) console.warn(redisSkipReason("the cluster request-cost test"));

const cli = (port: number, ...args: string[]) => spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" }).stdout;

/**
 * The Redis commands of each request, read from MONITOR: the lines of the request path's connections
 * (`lp-data`, `lp-media`, `lp-lock`) and the commands their scripts ran (MONITOR prints those right after
 * the script's line), between two markers. The change-feed checks a process makes once a second on its own
 * (XRANGE, and a MULTI ... EXEC reading the stream's state) are not the request's and are left out; the
 * queues' connections are not counted.
 */
async function commandsPerRequest(cluster: Cluster, requests: number, send: (i: number) => Promise<number>): Promise<{ perRequest: number; statuses: number[]; commands: Record<string, number> }> {
  const port = cluster.redis.port;
  const names = new Map(cli(port, "CLIENT", "LIST").trim().split("\n").map((line) => [/ addr=(\S+)/.exec(line)?.[1], /name=(\S*)/.exec(line)?.[1]]));
  const monitor = spawn("redis-cli", ["-p", String(port), "MONITOR"], { stdio: ["ignore", "pipe", "ignore"] });
  let text = "";
  monitor.stdout.on("data", (chunk) => (text += chunk));
  await new Promise<void>((resolve) => monitor.stdout.once("data", () => resolve()));
  cli(port, "ECHO", "lp-cost-start");
  const statuses: number[] = [];
  for (let i = 0; i < requests; i++) statuses.push(await send(i));
  cli(port, "ECHO", "lp-cost-end");
  // MONITOR prints each command as Redis runs it: the end marker comes after every command of the requests.
  await new Promise<void>((resolve) => {
    const seen = () => {
      if (!text.includes('"lp-cost-end"')) return;
      monitor.stdout.off("data", seen);
      resolve();
    };
    monitor.stdout.on("data", seen);
    seen();
  });
  monitor.kill();
  const lines = text.slice(text.indexOf('"lp-cost-start"'), text.indexOf('"lp-cost-end"')).split("\n").slice(1);
  const commands: Record<string, number> = {};
  let counting = false;
  const inTransaction = new Set<string>();
  for (const line of lines) {
    const match = /^[\d.]+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
    if (!match) continue;
    const [, from] = match;
    const command = match[2].toLowerCase();
    if (from !== "lua") {
      // The once-a-second feed check is a MULTI ... EXEC of its own: no request sends one.
      if (command === "multi") inTransaction.add(from);
      const background = inTransaction.has(from) || command === "xrange";
      if (command === "exec") inTransaction.delete(from);
      counting = /^lp-(data|media|lock)$/.test(names.get(from) ?? "") && !background;
    }
    if (counting) commands[command] = (commands[command] ?? 0) + 1;
  }
  const total = Object.values(commands).reduce((a, b) => a + b, 0);
  return { perRequest: total / requests, statuses, commands };
}

/** A POST with an Idempotency-Key costs at most twice the Redis commands of the same POST without one. */
describe.skipIf(!redisAvailable)("Redis commands of a POST with and without an Idempotency-Key", () => {
  const cluster = useCluster({ processes: 1 });

  it("costs at most twice as many commands with a fresh key, and fewer still on a replay", { timeout: 60_000 }, async () => {
    const body = (i: number) => ({ title: `Cost ${i}`, price: 2, product_type: "service" });
    const post = async (i: number, key?: string) => (await cluster.on(0, "POST", "products", { body: body(i), headers: key ? { "idempotency-key": key } : undefined })).status;
    // The first writes of an account create its key sets: warm them up so every measured request is alike.
    await post(0);
    await post(0, "cost-warm-up");
    const plain = await commandsPerRequest(cluster, 20, (i) => post(i));
    const keyed = await commandsPerRequest(cluster, 20, (i) => post(i, `cost-${i}`));
    const replayed = await commandsPerRequest(cluster, 20, (i) => post(i, `cost-${i}`));
    console.log(`Redis commands per POST: plain ${plain.perRequest} ${JSON.stringify(plain.commands)}; fresh key ${keyed.perRequest} ${JSON.stringify(keyed.commands)}; replay ${replayed.perRequest}`);
    expect(plain.statuses).toEqual(Array(20).fill(201));
    expect(keyed.statuses).toEqual(Array(20).fill(201));
    expect(replayed.statuses).toEqual(Array(20).fill(201));
    expect(plain.perRequest).toBeGreaterThan(0);
    expect(keyed.perRequest).toBeLessThanOrEqual(2 * plain.perRequest);
    expect(replayed.perRequest).toBeLessThan(keyed.perRequest);
  });
});
