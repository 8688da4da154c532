import { startChild, type Child } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { sampleLatency } from "../lib/latency.js";
import { runLoad, warmUp, type LoadResult } from "../lib/load.js";
import { fmt, median, type Row } from "../lib/table.js";
import { describeLoop, type LoopProbe } from "../lib/loop-delay.js";

interface LpInfo {
  url: string;
  account: string;
  token: string;
  firstListMs: number;
}

const BODY = JSON.stringify({ title: "Bench product", price: 19.99, product_type: "physical", description: "Made by autocannon" });
/** The embedded store's POST against memory's, within a round (issue 39). */
const RATIO_TARGET = 0.8;
const ROUNDS = 3;

/**
 * POST product on memory and on the embedded store (SQLite), both at 1,000 products, in interleaved rounds
 * (memory, sqlite, then again): the ratio is taken within each round and the median round's is judged, so a
 * neighbour's burst of CPU skews both sides alike. Then the embedded store at 100,000 products: its POST
 * against its own at 1,000, the first list of the process and warm list latency.
 */
export async function runWrites(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  ctx.log(`POST on memory and sqlite at ${fmt(ctx.small)} products, ${ROUNDS} interleaved rounds`);
  const memory = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "memory", BENCH_SEED: String(ctx.small) });
  let small: Child<LpInfo> | null = null;
  const rounds: { memory: LoadResult; sqlite: LoadResult }[] = [];
  try {
    small = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "sqlite", BENCH_DIR: ctx.tempDir("post-1k"), BENCH_SEED: String(ctx.small) });
    await warmUp(postOptions(memory.info, 1));
    await warmUp(postOptions(small.info, 1));
    for (let round = 0; round < ROUNDS; round++) {
      const mem = await measurePost(memory.info, ctx.seconds, memory.loop);
      rounds.push({ memory: mem, sqlite: await measurePost(small.info, ctx.seconds, small.loop) });
    }
  } finally {
    await memory.stop();
    await small?.stop();
  }
  const ratios = rounds.map((r) => r.sqlite.rps / r.memory.rps);
  const ratio = median(ratios);
  const failed = rounds.some((r) => r.memory.non2xx + r.memory.errors + r.sqlite.non2xx + r.sqlite.errors > 0);
  const memRps = median(rounds.map((r) => r.memory.rps));
  const sqlRps = median(rounds.map((r) => r.sqlite.rps));
  const mid = (side: "memory" | "sqlite") => rounds.find((r) => r[side].rps === (side === "memory" ? memRps : sqlRps))![side];
  rows.push({ scenario: "POST product (memory)", measured: describe(mid("memory")), loop: describeLoop(memory.loop.worst()), target: "-", met: null });
  rows.push({ scenario: `POST product (sqlite) at ${fmt(ctx.small)} records`, measured: describe(mid("sqlite")), loop: describeLoop(small!.loop.worst()), target: "-", met: null });
  rows.push({
    scenario: "POST product: sqlite / memory",
    measured: `${fmt(ratio, 2)}x (rounds ${ratios.map((r) => fmt(r, 2)).join("/")}x)`,
    target: `>= ${RATIO_TARGET}x memory`,
    met: ratio >= RATIO_TARGET && !failed,
  });

  const dir = ctx.tempDir(`post-${ctx.large}`);
  ctx.log(`seeding ${fmt(ctx.large)} products on sqlite`);
  const seeder = await startChild<{ seedMs: number }>("bench/servers/seed-sqlite.ts", { BENCH_DIR: dir, BENCH_SEED: String(ctx.large) }, 600_000);
  await seeder.stop();
  ctx.log(`POST on sqlite at ${fmt(ctx.large)}`);
  const large = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "sqlite", BENCH_DIR: dir, BENCH_SEED: "0" });
  try {
    const auth = { authorization: `Bearer ${large.info.token}` };
    const list = await sampleLatency(`${large.info.url}/v1/accounts/${large.info.account}/products?per_page=20`, auth, Math.min(ctx.seconds, 3));
    await warmUp(postOptions(large.info, 1));
    const result = await measurePost(large.info, ctx.seconds, large.loop);
    const flat = result.rps / sqlRps;
    rows.push({
      scenario: `POST product (sqlite) at ${fmt(ctx.large)} records`,
      measured: `${describe(result)} (${fmt(flat * 100)}% of ${fmt(ctx.small)})`,
      loop: describeLoop(large.loop.worst()),
      target: `within 20% of ${fmt(ctx.small)}`,
      met: flat >= 0.8 && result.non2xx === 0,
    });
    rows.push({ scenario: `seed ${fmt(ctx.large)} products (sqlite, transactions of 1,000)`, measured: `${fmt(seeder.info.seedMs / 1000, 1)} s`, target: "-", met: null });
    rows.push({ scenario: `first list at ${fmt(ctx.large)} (sqlite, in the server process before it reports)`, measured: `${fmt(large.info.firstListMs, 1)} ms (${fmt(ctx.small)}: ${fmt(small!.info.firstListMs, 1)} ms)`, target: "-", met: null });
    rows.push({
      scenario: `list per_page=20 at ${fmt(ctx.large)} (sqlite, warm, sequential)`,
      measured: `p50 ${fmt(list.p50, 2)} ms, p99 ${fmt(list.p99, 2)} ms`,
      target: "p50 <= 20 ms",
      met: list.p50 <= 20 && list.failures === 0,
    });
  } finally {
    await large.stop();
  }
  return rows;
}

const postOptions = (info: LpInfo, seconds: number) => ({
  url: `${info.url}/v1/accounts/${info.account}/products`,
  method: "POST" as const,
  headers: { authorization: `Bearer ${info.token}`, "content-type": "application/json" },
  body: BODY,
  seconds,
});

function measurePost(info: LpInfo, seconds: number, probe: LoopProbe): Promise<LoadResult> {
  return probe.around(() => runLoad(postOptions(info, seconds)));
}

const describe = (r: LoadResult) => `${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ""}`;
