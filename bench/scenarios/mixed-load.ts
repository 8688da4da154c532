import { startChild } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { runLoad, warmUp, type LoadOptions } from "../lib/load.js";
import type { LpInfo } from "../lib/lp-info.js";
import { describeLoop } from "../lib/loop-delay.js";
import { fmt, type Row } from "../lib/table.js";

const LOOP_P99_TARGET_MS = 20;
const BODY = JSON.stringify({ title: "Mixed load", price: 9.5, product_type: "physical", description: "Made by the mixed load" });

/**
 * The mixed load (issue 28): one `lp` server on the embedded store (SQLite) with 1,000 products takes GET one product (4
 * connections), list `per_page=20` (2) and POST product (2) at once for the run's length, and its own event
 * loop is watched over it (bench/lib/loop-hook.ts). Target: event-loop delay p99 at most 20 ms.
 */
export async function runMixedLoad(ctx: BenchContext): Promise<Row[]> {
  ctx.log(`mixed load on sqlite: GET one, list and POST at once, ${fmt(ctx.small)} products`);
  const server = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "sqlite", BENCH_DIR: ctx.tempDir("mixed"), BENCH_SEED: String(ctx.small) });
  try {
    const { url, account, token, productId } = server.info;
    const auth = { authorization: `Bearer ${token}` };
    const base = `${url}/v1/accounts/${account}/products`;
    const loads: [string, LoadOptions][] = [
      ["GET", { url: `${base}/${productId}`, headers: auth, connections: 4, seconds: ctx.seconds }],
      ["list", { url: `${base}?per_page=20`, headers: auth, connections: 2, seconds: ctx.seconds }],
      ["POST", { url: base, method: "POST", headers: { ...auth, "content-type": "application/json" }, body: BODY, connections: 2, seconds: ctx.seconds }],
    ];
    await Promise.all(loads.map(([, options]) => warmUp(options)));
    const results = await server.loop.around(() => Promise.all(loads.map(([, options]) => runLoad(options))));
    const loop = server.loop.worst();
    const failed = results.reduce((n, r) => n + r.errors + r.non2xx, 0);
    const each = loads.map(([name], i) => `${name} ${fmt(results[i].rps)} (p99 ${results[i].p99} ms)`).join(", ");
    return [
      {
        scenario: `mixed load on sqlite: GET one, list, POST at once (${fmt(ctx.small)} products)`,
        measured: `${each} req/s${failed ? `, ${fmt(failed)} failed` : ""}`,
        loop: describeLoop(loop),
        target: `event loop p99 <= ${LOOP_P99_TARGET_MS} ms`,
        met: loop !== null && loop.p99 <= LOOP_P99_TARGET_MS && failed === 0,
      },
    ];
  } finally {
    await server.stop();
  }
}
