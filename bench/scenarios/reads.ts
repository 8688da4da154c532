import { rssMb, startChild, type Child } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { sampleLatency } from "../lib/latency.js";
import { fmt, type Row } from "../lib/table.js";
import type { LpInfo } from "../lib/lp-info.js";
import { describeLoop, type LoopProbe } from "../lib/loop-delay.js";

/** The list targets of the table-per-resource schema: a keyset page on the products' index. */
const LIST_P50_MS = { memory: 1, sqlite: 1, postgres: 5 } as const;
/** A process serving 100,000 products on its embedded store. */
const RSS_TARGET_MB = 120;

type Store = keyof typeof LIST_P50_MS;

/**
 * Reads: a 20-item list page, one request at a time, at 1,000 and at 100,000 products on each store (sqlite and
 * postgres seeded in bulk by a process of their own before the server opens them, memory through the core),
 * and the footprint of the embedded store's server at 100,000. GET one product is get-one.ts.
 */
export async function runReads(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  for (const store of ["memory", "sqlite", "postgres"] as const) {
    for (const size of [ctx.small, ctx.large]) {
      const env = await storeEnv(ctx, store, size);
      if (!env) continue;
      ctx.log(`lp (${store}) with ${fmt(size)} products`);
      // The stores below the process are filled by a process of their own first: the server's footprint is then
      // what serving takes, not what seeding left in its heap.
      let seedMs = 0;
      if (store !== "memory") {
        const seeder = await startChild<{ seedMs: number }>("bench/servers/seed-sqlite.ts", env, 900_000);
        await seeder.stop();
        seedMs = seeder.info.seedMs;
        env.BENCH_SEED = "0";
      }
      const server = await startChild<LpInfo>("bench/servers/lp-server.ts", env, 900_000);
      try {
        // Read once ready and collected (lp-server.ts runs a gc before it reports), before the listing load.
        const rss = rssMb(server.child.pid!);
        const list = await measureList(server, ctx.seconds, server.loop);
        const judged = size === ctx.large;
        rows.push({
          scenario: `list per_page=20 at ${fmt(size)} (${store}, sequential)`,
          measured: `p50 ${fmt(list.p50, 2)} ms, p99 ${fmt(list.p99, 2)} ms`,
          loop: describeLoop(server.loop.worst()),
          target: judged ? `p50 <= ${LIST_P50_MS[store]} ms` : "-",
          met: judged ? list.p50 <= LIST_P50_MS[store] : null,
        });
        if (judged && store !== "memory") rows.push({ scenario: `seed ${fmt(size)} products (${store}, below the server, transactions of 1,000)`, measured: `${fmt(seedMs / 1000, 1)} s`, target: "-", met: null });
        if (judged && store === "sqlite") rows.push({ scenario: `RSS at ${fmt(size)} products (sqlite)`, measured: `${fmt(rss)} MB`, target: `<= ${RSS_TARGET_MB} MB`, met: rss <= RSS_TARGET_MB });
        if (judged && store === "memory") rows.push({ scenario: `RSS at ${fmt(size)} products (memory: the rows are in the process)`, measured: `${fmt(rss)} MB`, target: "-", met: null });
      } finally {
        await server.stop();
      }
    }
  }
  return rows;
}

/** The environment of `lp-server.ts` for `store` with `size` products; null for postgres where it is not installed. */
async function storeEnv(ctx: BenchContext, store: Store, size: number): Promise<Record<string, string> | null> {
  const env: Record<string, string> = { BENCH_STORAGE: store, BENCH_SEED: String(size) };
  if (store === "sqlite") env.BENCH_DIR = ctx.tempDir(`reads-${size}`);
  if (store === "postgres") {
    const url = await ctx.postgresDatabase();
    if (!url) return null;
    env.BENCH_DATABASE_URL = url;
  }
  return env;
}

/** Default listing (newest first), one request at a time so latency is service time rather than queueing. */
async function measureList(server: Child<LpInfo>, seconds: number, probe: LoopProbe) {
  const url = `${server.info.url}/v1/accounts/${server.info.account}/products?per_page=20`;
  const headers = { authorization: `Bearer ${server.info.token}` };
  await sampleLatency(url, headers, 1);
  const result = await probe.around(() => sampleLatency(url, headers, seconds));
  if (result.failures) throw new Error(`${result.failures} listing requests failed`);
  return result;
}
