import { Agent, request } from "node:http";
import { startChild, type Child } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import type { LpInfo } from "../lib/lp-info.js";
import { describeLoop, type LoopDelay } from "../lib/loop-delay.js";
import { fmt, type Row } from "../lib/table.js";
import { redisMissing, startBenchRedis } from "./redis-tools.js";

const LIST_TARGET_MS = 300;
const BLOCK_TARGET_MS = 50;
const POLL_EVERY_MS = 5;

/** One GET on `agent`'s connection: status, body and ms from send to the last byte. */
function get(url: string, headers: Record<string, string>, agent: Agent): Promise<{ status: number; body: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - t0 }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** `/healthz` one request after another, POLL_EVERY_MS apart, on a connection of its own until stopped. */
function pollHealth(base: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failed = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const t0 = performance.now();
      const answer = await get(`${base}/healthz`, {}, agent).catch(() => null);
      // A poll that failed (the server's header timeout closes a connection it could not read for 10 s)
      // still waited: its time counts in the maximum.
      times.push(answer?.ms ?? performance.now() - t0);
      if (answer?.status !== 200) failed++;
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
  })();
  return {
    answered: () => times.length - failed,
    async stop() {
      running = false;
      await done;
      agent.destroy();
      return { max: Math.max(0, ...times), polls: times.length, failed };
    },
  };
}

interface Restarted {
  firstMs: number;
  secondMs: number;
  health: { max: number; polls: number; failed: number };
  /** From the moment the process reported ready to the end of the polling after its first list. */
  loop: LoopDelay | null;
  /** From the process's start (module loading included) to ready: nothing can wait on it yet. */
  startup: LoopDelay | null;
  /** Whether the first page was a full one (20 products and more to come): an empty index is no answer. */
  full: boolean;
}

/**
 * The first `GET /products?per_page=20` of a process that has just started on data it did not write, with
 * `/healthz` polled beside it, then a second list. The event-loop figures are the process's own, read
 * through the loop hook: from ready to the end of the polling (judged), and from its start to ready (module
 * loading and start-up, when no request can be waiting yet; reported beside).
 */
async function firstListOf(server: Child<LpInfo>): Promise<Restarted> {
  // The first window (open from the process's start) closes here: start-up, reported apart.
  const startup = await server.loop.sinceStart();
  const result = await server.loop.around(() => listWhilePolling(server, startup));
  return { ...result, loop: server.loop.worst() };
}

async function listWhilePolling(server: Child<LpInfo>, startup: LoopDelay | null): Promise<Restarted> {
  const { url, account, token } = server.info;
  const health = pollHealth(url);
  // The poller's connection is open and answered before the list is sent.
  const deadline = performance.now() + 30_000;
  while (health.answered() < 3) {
    if (server.child.exitCode !== null || server.child.signalCode !== null || performance.now() > deadline) {
      const seen = await health.stop();
      throw new Error(`the restarted server never answered /healthz with 200 (${seen.failed} other answers; exit ${server.child.exitCode ?? server.child.signalCode})`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
  }
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const list = () => get(`${url}/v1/accounts/${account}/products?per_page=20`, { authorization: `Bearer ${token}` }, agent);
  try {
    const first = await list();
    const second = await list();
    // A little more polling after the answer: work the list left behind would still show.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const page = first.status === 200 ? (JSON.parse(first.body) as { data: unknown[]; pagination: { has_more: boolean } }) : null;
    return { firstMs: first.ms, secondMs: second.ms, health: await health.stop(), loop: null, startup, full: page?.data.length === 20 && page.pagination.has_more };
  } finally {
    agent.destroy();
    await health.stop();
  }
}

function rowsOf(storage: string, size: number, r: Restarted): Row[] {
  const healthNote = `/healthz max ${fmt(r.health.max)} ms over ${fmt(r.health.polls)} polls${r.health.failed ? `, ${r.health.failed} failed` : ""}`;
  return [
    {
      scenario: `first list after restart at ${fmt(size)} (${storage})`,
      measured: `${fmt(r.firstMs)} ms (second ${fmt(r.secondMs, 1)} ms); ${healthNote}${r.full ? "" : "; NOT a full first page"}`,
      loop: describeLoop(r.loop),
      target: `<= ${LIST_TARGET_MS} ms`,
      met: r.firstMs <= LIST_TARGET_MS && r.full && r.health.failed === 0,
    },
    {
      scenario: `restarted process, ready to first list: longest loop block (${storage})`,
      measured: `${r.loop ? `${fmt(r.loop.max)} ms` : "n/a"} (before ready, not judged: ${r.startup ? `${fmt(r.startup.max)} ms` : "n/a"})`,
      target: `<= ${BLOCK_TARGET_MS} ms`,
      met: r.loop !== null && r.loop.max <= BLOCK_TARGET_MS,
    },
  ];
}

/** The rows, also in the log as soon as they are known (the table prints at the end of the whole run). */
function logged(ctx: BenchContext, rows: Row[]): Row[] {
  for (const r of rows) ctx.log(`${r.scenario}: ${r.measured}${r.loop ? `; event loop ${r.loop}` : ""}`);
  return rows;
}

/** Seeds `count` products through the products service in a process that has ended when this resolves. */
async function seed(env: Record<string, string>, count: number) {
  const seeder = await startChild<{ seedMs: number }>("bench/servers/seed-core.ts", { ...env, BENCH_SEED: String(count) }, 900_000);
  await seeder.stop();
  return seeder;
}

/** Starts the measured process: lp's server on data already there, reporting before any list or write. */
async function restart(ctx: BenchContext, env: Record<string, string>): Promise<Child<LpInfo>> {
  const server = await startChild<LpInfo>("bench/servers/lp-server.ts", { ...env, BENCH_SEED: "0", BENCH_FIRST_LIST: "0" });
  // What it says on stderr (a warning, a crash) shows in the bench's log.
  server.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => ctx.log(`restarted server: ${chunk.trim()}`));
  return server;
}

async function onFs(ctx: BenchContext): Promise<Row[]> {
  const dir = ctx.tempDir("restart-fs");
  ctx.log(`restart at ${fmt(ctx.large)} (fs): seeding through the products service (not measured)`);
  const seeder = await seed({ BENCH_STORAGE: "sqlite", BENCH_DIR: dir }, ctx.large);
  ctx.log(`restart at ${fmt(ctx.large)} (fs): seeded in ${fmt(seeder.info.seedMs / 1000, 1)} s; starting a fresh process`);
  const server = await restart(ctx, { BENCH_STORAGE: "sqlite", BENCH_DIR: dir });
  try {
    return logged(ctx, rowsOf("sqlite", ctx.large, await firstListOf(server)));
  } finally {
    await server.stop();
  }
}

async function onRedis(ctx: BenchContext): Promise<Row[]> {
  const missing = redisMissing("first list after restart (Redis)");
  if (missing) return missing;
  const redis = await startBenchRedis("everysec");
  try {
    ctx.log(`restart at ${fmt(ctx.large)} (Redis): seeding through the products service (not measured)`);
    const seeder = await seed({ BENCH_STORAGE: "redis", BENCH_REDIS_URL: redis.url }, ctx.large);
    ctx.log(`restart at ${fmt(ctx.large)} (Redis): seeded in ${fmt(seeder.info.seedMs / 1000, 1)} s; starting a fresh process`);
    const server = await restart(ctx, { BENCH_STORAGE: "redis", BENCH_REDIS_URL: redis.url });
    try {
      return logged(ctx, rowsOf("Redis", ctx.large, await firstListOf(server)));
    } finally {
      await server.stop();
    }
  } finally {
    // Bounded: a redis-server that something else killed with a signal leaves the helper's dispose
    // waiting for an exit event that has already gone by.
    const gone = await Promise.race([redis.dispose().then(() => true), new Promise<false>((resolve) => setTimeout(resolve, 10_000, false).unref())]);
    if (!gone) ctx.log(`restart (Redis): redis-server on port ${redis.port} did not report its exit within 10 s`);
  }
}

/**
 * First list after a restart (issue 28): one account with 100,000 products (20,000 with --quick), seeded
 * through the products service by one process that then stops; a fresh process opens the same data (an fs
 * data dir, or the same redis-server) and its first `GET /products?per_page=20` is timed while `/healthz`
 * is polled every 5 ms on another connection. Targets: the first list within 300 ms, and no event-loop
 * block over 50 ms in the new process from the moment it is ready to the end of its first list.
 */
export async function runRestartList(ctx: BenchContext): Promise<Row[]> {
  return [...(await onFs(ctx)), ...(await onRedis(ctx))];
}
