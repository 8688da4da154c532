import { startChild, type Child } from "../lib/child.js";
import { describeLoop, type LoopProbe } from "../lib/loop-delay.js";
import type { BenchContext } from "../lib/context.js";
import { runLoad, warmUp, type LoadResult } from "../lib/load.js";
import { median, fmt, type Row } from "../lib/table.js";

interface Target {
  name: string;
  url: string;
  headers?: Record<string, string>;
  /** lp's servers: their event loop is watched over each measured run. */
  probe?: LoopProbe;
}

/**
 * GET one product on lp (memory and the embedded store, SQLite) against its two anchors: a bare h3 app answering from a Map
 * (the ceiling) and json-server 0.17 (the peer). All four servers run at once and are measured in
 * interleaved rounds (bare, lp memory, lp sqlite, json-server, then again), and every ratio is taken within a
 * round before the median is kept: a neighbour's burst of CPU use then skews both sides of a ratio alike.
 */
export async function runGetOne(ctx: BenchContext): Promise<Row[]> {
  ctx.log(`GET one product: bare h3, lp (memory, sqlite) and json-server, ${fmt(ctx.small)} products`);
  const children: Child<unknown>[] = [];
  try {
    const bare = await startChild<{ url: string; path: string }>("bench/servers/bare-h3.ts", {});
    children.push(bare);
    const lp = async (storage: "memory" | "sqlite"): Promise<Target> => {
      const env: Record<string, string> = { BENCH_STORAGE: storage, BENCH_SEED: String(ctx.small) };
      if (storage === "sqlite") env.BENCH_DIR = ctx.tempDir("get-one");
      const child = await startChild<{ url: string; account: string; token: string; productId: string }>("bench/servers/lp-server.ts", env);
      children.push(child);
      const { url, account, token, productId } = child.info;
      return { name: storage, url: `${url}/v1/accounts/${account}/products/${productId}`, headers: { authorization: `Bearer ${token}` }, probe: child.loop };
    };
    const memory = await lp("memory");
    const sqlite = await lp("sqlite");
    const peer = await startChild<{ url: string; path: string }>("bench/servers/json-server-peer.ts", {});
    children.push(peer);
    const targets: Target[] = [{ name: "bare", url: `${bare.info.url}${bare.info.path}` }, memory, sqlite, { name: "peer", url: `${peer.info.url}${peer.info.path}` }];
    for (const t of targets) await warmUp({ url: t.url, headers: t.headers, seconds: ctx.seconds });

    const seconds = Math.max(2, ctx.seconds - 2);
    const rounds: Record<string, LoadResult>[] = [];
    for (let round = 0; round < 3; round++) {
      const results: Record<string, LoadResult> = {};
      for (const t of targets) {
        const load = () => runLoad({ url: t.url, headers: t.headers, seconds });
        results[t.name] = t.probe ? await t.probe.around(load) : await load();
      }
      rounds.push(results);
    }
    const rps = (name: string) => median(rounds.map((r) => r[name].rps));
    const share = (name: string, of: string) => rounds.map((r) => r[name].rps / r[of].rps);
    const rows: Row[] = [{ scenario: "bare h3 v2 GET from a Map (ceiling)", measured: `${fmt(rps("bare"))} req/s`, target: "-", met: null }];
    for (const [name, probe] of [["memory", memory.probe!], ["sqlite", sqlite.probe!]] as const) {
      const loop = describeLoop(probe.worst());
      const ofBare = share(name, "bare");
      const ofPeer = share(name, "peer");
      const failed = rounds.some((r) => r[name].non2xx > 0 || r[name].errors > 0);
      rows.push({
        scenario: `lp GET one product (${name}) / bare h3`,
        measured: `${fmt(rps(name))} req/s, ${fmt(median(ofBare) * 100)}% (rounds ${ofBare.map((s) => fmt(s * 100)).join("/")}%)`,
        loop,
        target: ">= 60% of bare h3",
        met: median(ofBare) >= 0.6 && !failed,
      });
      rows.push({
        scenario: `lp GET one product (${name}) / json-server`,
        measured: `${fmt(median(ofPeer), 2)}x (rounds ${ofPeer.map((s) => fmt(s, 2)).join("/")}x)`,
        target: ">= 4x json-server",
        met: median(ofPeer) >= 4 && !failed,
      });
    }
    rows.push({ scenario: "json-server 0.17 GET by id (peer)", measured: `${fmt(rps("peer"))} req/s`, target: "-", met: null });
    return rows;
  } finally {
    for (const child of children) await child.stop();
  }
}
