/**
 * Page generation and deployment figures (issues 3 and 4): job and deployment settle latency without
 * simulated delay, many at once, and live-site throughput against a bare h3 server answering the same
 * bytes. Everything runs on 127.0.0.1, bounded in time.
 */
import autocannon from "autocannon";
import { H3, HTTPResponse } from "h3";
import { toNodeHandler } from "h3/node";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startServer } from "../server/src/serve.js";
import type { BenchRow } from "./lib/bench-row.js";


const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await work();
    return { result, peakMb: Math.max(peak, process.memoryUsage().rss) / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

async function rps(url: string, seconds: number): Promise<{ rps: number; p50: number }> {
  const result = await autocannon({ url, connections: 16, duration: seconds });
  return { rps: result.requests.average, p50: result.latency.p50 };
}

/** Runs the scenarios; `quick` shortens them. */
export async function benchPagesAndDeployments(options: { quick?: boolean } = {}): Promise<BenchRow[]> {
  const rounds = options.quick ? 50 : 200;
  const seconds = options.quick ? 2 : 5;
  const server = await startServer({ storage: "memory", port: 0, log: null, admin: true, adminKey: "bench" });
  const { core, credentials } = server;
  const account = credentials.account_id;
  await core.database.db.updateTable("accounts").set({ page_quota: 100_000 }).where("account_id", "=", account).execute();
  const productId = (await core.products.create(account, { title: "Bench Lamp", price: 30, product_type: "physical" })).id;
  const rows: BenchRow[] = [];
  try {
    const jobTimes: number[] = [];
    const pageIds: string[] = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const { job_id } = await core.pages.create(account, { product_id: productId }, null);
      await core.onIdle();
      jobTimes.push(performance.now() - t0);
      pageIds.push((await core.pages.getJob(account, job_id)).page_id!);
    }
    rows.push({ name: "job completion p50 (template)", value: percentile(jobTimes, 50), unit: "ms", target: "≤ 50 ms", met: percentile(jobTimes, 50) <= 50 });
    rows.push({ name: "job completion p99 (template)", value: percentile(jobTimes, 99), unit: "ms" });

    const burst = await peakRss(async () => {
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 200 }, () => core.pages.create(account, { product_id: productId }, null)));
      await core.onIdle();
      return performance.now() - t0;
    });
    rows.push({ name: "200 page creations at once: all complete", value: burst.result, unit: "ms" });
    rows.push({ name: "200 page creations at once: peak RSS", value: burst.peakMb, unit: "MB" });

    const deployTimes: number[] = [];
    for (const pageId of pageIds.slice(0, rounds)) {
      const t0 = performance.now();
      await core.deployments.start(account, pageId, null);
      await core.onIdle();
      deployTimes.push(performance.now() - t0);
    }
    rows.push({ name: "deployment settle p50", value: percentile(deployTimes, 50), unit: "ms", target: "≤ 100 ms", met: percentile(deployTimes, 50) <= 100 });
    rows.push({ name: "deployment settle p99", value: percentile(deployTimes, 99), unit: "ms" });

    const hundred = pageIds.slice(0, 100);
    const t0 = performance.now();
    await Promise.all(hundred.map((id) => core.deployments.start(account, id, null)));
    await core.onIdle();
    rows.push({ name: "100 pages deployed at once: all succeed", value: performance.now() - t0, unit: "ms" });

    const page = await core.pages.get(account, pageIds[0]);
    const siteUrl = page.deployed_url!;
    const html = await (await fetch(siteUrl)).text();
    const bare = await startBareSite(html);
    // Three interleaved pairs; the median pair's ratio (a neighbour's burst then skews both sides alike).
    const pairs: { ceiling: number; site: number }[] = [];
    const pairSeconds = Math.max(2, seconds - 2);
    for (let round = 0; round < 3; round++) pairs.push({ ceiling: (await rps(bare.url, pairSeconds)).rps, site: (await rps(siteUrl, pairSeconds)).rps });
    await bare.close();
    const { ceiling, site } = pairs.sort((a, b) => a.site / a.ceiling - b.site / b.ceiling)[1];
    const share = Math.round((site / ceiling) * 100);
    rows.push({ name: "site GET, bare h3 ceiling (same bytes)", value: ceiling, unit: "req/s" });
    rows.push({ name: "site GET, lp", value: site, unit: "req/s" });
    rows.push({ name: `site GET, lp / ceiling (pairs ${pairs.map((p) => Math.round((p.site / p.ceiling) * 100)).join("/")}%)`, value: share, unit: "%", target: ">= 60", met: share >= 60 });
  } finally {
    await server.close();
  }
  return rows;
}

async function startBareSite(html: string) {
  const files = new Map([["/", html]]);
  // h3's fast response path (HTTPResponse with a string body), as lp's sites use: the ceiling is the best
  // bare h3 does with these bytes, not a web-stream Response.
  const app = new H3().get("/**", () => new HTTPResponse(files.get("/")!, { headers: { "content-type": "text/html; charset=utf-8" } }));
  const server = createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await benchPagesAndDeployments({ quick: process.argv.includes("--quick") });
  console.table(rows.map((r) => ({ ...r, value: Number(r.value.toFixed(2)) })));
}
