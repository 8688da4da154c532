import { benchPagesAndDeployments } from "../pages-deployments.js";
import type { BenchRow } from "../lib/bench-row.js";
import { benchWebhooks } from "../webhooks.js";
import type { BenchContext } from "../lib/context.js";
import { fmt, type Row } from "../lib/table.js";
import { describeLoop, inProcessProbe, type LoopProbe } from "../lib/loop-delay.js";

const toRow = (r: BenchRow): Row => ({
  scenario: r.name,
  measured: `${fmt(r.value, r.unit === "ms" || r.unit === "ratio" ? 2 : 0)} ${r.unit}`,
  target: r.target ?? "-",
  met: r.met ?? null,
});

/** A row of its own for the event loop: these servers run in the bench's process, beside the load generator. */
const loopRow = (what: string, probe: LoopProbe): Row => ({
  scenario: `${what}: event loop of the bench's own process (server and load generator)`,
  measured: "-",
  loop: describeLoop(probe.worst()),
  target: "-",
  met: null,
});

/**
 * Generation jobs, deployments and sites, then webhook deliveries: the asynchronous side of the API. Their
 * servers run in this process, so its own event loop is watched around each part.
 */
export async function runAsyncWork(ctx: BenchContext): Promise<Row[]> {
  ctx.log("page generation jobs, deployments and live sites");
  const pagesLoop = inProcessProbe();
  const pages = await pagesLoop.around(() => benchPagesAndDeployments({ quick: ctx.quick }));
  ctx.log("webhook deliveries");
  const webhooksLoop = inProcessProbe();
  const webhooks = await webhooksLoop.around(() => benchWebhooks({ quick: ctx.quick }));
  return [...pages.map(toRow), loopRow("pages, deployments, sites", pagesLoop), ...webhooks.map(toRow), loopRow("webhooks", webhooksLoop)];
}
