import { benchPagesAndDeployments } from "../pages-deployments.js";
import type { BenchRow } from "../lib/bench-row.js";
import { benchWebhooks } from "../webhooks.js";
import type { BenchContext } from "../lib/context.js";
import { fmt, type Row } from "../lib/table.js";

const toRow = (r: BenchRow): Row => ({
  scenario: r.name,
  measured: `${fmt(r.value, r.unit === "ms" || r.unit === "ratio" ? 2 : 0)} ${r.unit}`,
  target: r.target ?? "-",
  met: r.met ?? null,
});

/** Generation jobs, deployments and sites, then webhook deliveries: the asynchronous side of the API. */
export async function runAsyncWork(ctx: BenchContext): Promise<Row[]> {
  ctx.log("page generation jobs, deployments and live sites");
  const pages = await benchPagesAndDeployments({ quick: ctx.quick });
  ctx.log("webhook deliveries");
  const webhooks = await benchWebhooks({ quick: ctx.quick });
  return [...pages, ...webhooks].map(toRow);
}
