import { startChild } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { runLoad, warmUp } from "../lib/load.js";
import { fmt, type Row } from "../lib/table.js";

/** GET by id on json-server (the peer), measured the same way as the bare h3 ceiling and lp. */
export async function runPeer(ctx: BenchContext): Promise<Row[]> {
  ctx.log("json-server peer: GET by id");
  const peer = await startChild<{ url: string; path: string }>("bench/servers/json-server-peer.ts", {});
  try {
    const url = `${peer.info.url}${peer.info.path}`;
    await warmUp({ url, seconds: ctx.seconds });
    const run = await runLoad({ url, seconds: ctx.seconds });
    return [{ scenario: "json-server 0.17 GET by id (peer)", measured: `${fmt(run.rps)} req/s, p50 ${run.p50} ms`, target: "-", met: null }];
  } finally {
    await peer.stop();
  }
}
