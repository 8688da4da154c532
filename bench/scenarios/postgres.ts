import { readdirSync, readFileSync } from "node:fs";
import { hookStatements, type StatementKind } from "../../core/src/db/statement-hooks.js";
import { startServer } from "../../server/src/serve.js";
import { startChild } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import type { LpInfo } from "../lib/lp-info.js";
import { runLoad, warmUp, type LoadOptions } from "../lib/load.js";
import { describeLoop } from "../lib/loop-delay.js";
import { processCpuMs } from "../lib/proc-cpu.js";
import { fmt, type Row } from "../lib/table.js";

const BODY = JSON.stringify({ title: "Bench product", price: 19.99, product_type: "physical", description: "Made by autocannon" });
/** Requests sent one at a time while the statements are counted. */
const COUNTED = 200;

/**
 * lp on PostgreSQL: the statements one GET one product and one POST product send (counted in process by the
 * statement hooks, transaction control included, background work the request caused included), then each
 * under load on a server process of its own: requests per second, and the CPU PostgreSQL spent per request
 * (every process of the server: the postmaster's children), from which the rate one database could carry
 * follows: its cores' time divided by that cost, with lp's processes elsewhere.
 */
export async function runPostgres(ctx: BenchContext): Promise<Row[]> {
  const countUrl = await ctx.postgresDatabase();
  if (!countUrl) return [];
  ctx.log("PostgreSQL: statements per request");
  const counts = await countStatements(countUrl);
  const rows: Row[] = [];
  for (const [what, kinds] of Object.entries(counts)) {
    const total = Object.values(kinds).reduce((a, b) => a + b, 0);
    const parts = Object.entries(kinds).filter(([, n]) => n > 0).map(([kind, n]) => `${fmt(n, 1)} ${kind}`).join(", ");
    rows.push({ scenario: `statements per ${what} (postgres)`, measured: `${fmt(total, 1)} (${parts})`, target: "-", met: null });
  }

  const url = await ctx.postgresDatabase();
  ctx.log(`PostgreSQL: GET and POST under load, ${fmt(ctx.small)} products`);
  const server = await startChild<LpInfo>("bench/servers/lp-server.ts", { BENCH_STORAGE: "postgres", BENCH_DATABASE_URL: url!, BENCH_SEED: String(ctx.small) });
  const postmaster = ctx.postgresPid()!;
  try {
    const auth = { authorization: `Bearer ${server.info.token}` };
    const base = `${server.info.url}/v1/accounts/${server.info.account}/products`;
    const loads: [string, LoadOptions][] = [
      ["GET one product", { url: `${base}/${server.info.productId}`, headers: auth, seconds: ctx.seconds }],
      ["POST product", { url: base, method: "POST", headers: { ...auth, "content-type": "application/json" }, body: BODY, seconds: ctx.seconds }],
    ];
    for (const [what, options] of loads) {
      await warmUp({ ...options, seconds: 1 });
      const pgBefore = serverCpuMs(postmaster);
      const lpBefore = processCpuMs(server.child.pid!) ?? NaN;
      const result = await server.loop.around(() => runLoad(options));
      const requests = result.ok + result.non2xx;
      const pgPer = (serverCpuMs(postmaster) - pgBefore) / requests;
      const lpPer = ((processCpuMs(server.child.pid!) ?? NaN) - lpBefore) / requests;
      rows.push({
        scenario: `lp ${what} (postgres, one process)`,
        measured: `${fmt(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms${result.non2xx ? `, ${result.non2xx} non-2xx` : ""}`,
        loop: describeLoop(server.loop.worst()),
        target: "-",
        met: result.non2xx + result.errors === 0 ? null : false,
      });
      rows.push({
        scenario: `${what}: CPU per request, PostgreSQL / lp`,
        measured: `${fmt(pgPer, 3)} ms / ${fmt(lpPer, 3)} ms: one database core carries about ${fmt(1000 / pgPer)} req/s`,
        target: "-",
        met: null,
      });
    }
  } finally {
    await server.stop();
  }
  return rows;
}

/** Statements by kind per request, averaged over {@link COUNTED} requests sent one at a time to an in-process server. */
async function countStatements(databaseUrl: string): Promise<Record<string, Record<StatementKind, number>>> {
  const server = await startServer({ storage: "postgres", databaseUrl, port: 0, log: null, admin: false });
  try {
    const { account_id, token } = server.credentials;
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const base = `${server.url}/v1/accounts/${account_id}/products`;
    const created = ((await (await fetch(base, { method: "POST", headers: auth, body: BODY })).json()) as { data: { id: string } }).data;
    await server.core.onIdle();
    const count = async (send: () => Promise<Response>) => {
      const seen: Record<StatementKind, number> = { read: 0, write: 0, begin: 0, commit: 0, rollback: 0 };
      const remove = hookStatements(server.core.database, (statement, run) => (seen[statement.kind]++, run()));
      try {
        for (let i = 0; i < COUNTED; i++) {
          const response = await send();
          if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        }
        // What the requests made due (the product.created event's fan-out) runs before the count ends.
        await server.core.onIdle();
      } finally {
        remove();
      }
      return Object.fromEntries(Object.entries(seen).map(([kind, n]) => [kind, n / COUNTED])) as Record<StatementKind, number>;
    };
    return {
      "GET one product": await count(() => fetch(`${base}/${created.id}`, { headers: auth })),
      "POST product": await count(() => fetch(base, { method: "POST", headers: auth, body: BODY })),
      "list page (per_page=20)": await count(() => fetch(`${base}?per_page=20`, { headers: auth })),
    };
  } finally {
    await server.close();
  }
}

/** CPU time (ms) of a PostgreSQL server so far: the postmaster and every process it started (backends, writers). */
function serverCpuMs(postmaster: number): number {
  let total = processCpuMs(postmaster) ?? 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (parent === postmaster) total += processCpuMs(Number(entry)) ?? 0;
  }
  return total;
}
