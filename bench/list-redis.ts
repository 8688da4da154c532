/**
 * List latency on Redis: `npx tsx bench/list-redis.ts [sizes] [rounds]` (default `1000,100000 200`). For each
 * size, one account's products are written by a first core; a second core on its own connections (as a
 * second process would be) serves `GET /products` (first page, 20 per page) through the core, and the script
 * prints the p50 and p95 of: a list with nothing new on the feed, and a list right after the other core
 * created a product (which the list must show: read your writes). One-off, not in `npm run bench`; the
 * figures go in docs/performance.md. Starts its own redis-server (Debian package "redis-server").
 */
import { availableParallelism, loadavg } from "node:os";
import { createCore, createStores, type Core } from "../core/src/index.js";
import { startRedisServer } from "../core/src/testing/redis-server.js";

const sizes = (process.argv[2] ?? "1000,100000").split(",").map(Number);
const rounds = Number(process.argv[3] ?? 200);
const ACCOUNT = "acct_benchlist";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function open(url: string, prefix: string): Promise<{ core: Core; dispose(): Promise<void> }> {
  const stores = createStores("redis", { url, prefix });
  const core = await createCore({ stores, redis: { url, prefix }, publicUrl: () => "http://lp.bench" });
  return {
    core,
    async dispose() {
      await core.close();
      await stores.dispose();
    },
  };
}

/** Writes `count` products straight through the store, 500 per batch (the list reads them as any others). */
async function seed(url: string, prefix: string, count: number) {
  const stores = createStores("redis", { url, prefix });
  for (let start = 0; start < count; start += 500) {
    const ops = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
      const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
      const record = {
        id,
        account_id: ACCOUNT,
        title: `Product ${i}`,
        description: null,
        price: 10 + (i % 90),
        original_price: null,
        delivery_price: null,
        product_type: i % 3 ? "physical" : "service",
        images: [],
        checkout_fields: null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      };
      ops.push({ key: `acct:${ACCOUNT}:products:${id}`, value: record });
    }
    await stores.batch(ops);
  }
  await stores.dispose();
}

const server = await startRedisServer({ appendfsync: "everysec" });
const rows: string[] = [];
try {
  await (async () => {
    const setup = createStores("redis", { url: server.url, prefix: "setup:" });
    await setup.data.setItem(`accounts:${ACCOUNT}`, { account_id: ACCOUNT, environment: "test", currency: "USD", page_quota: 5, created_at: "2026-01-01T00:00:00.000Z" });
    await setup.dispose();
  })();
  for (const size of sizes) {
    const prefix = `b${size}:`;
    let t = performance.now();
    await seed(server.url, prefix, size);
    const seeded = performance.now() - t;
    const writer = await open(server.url, prefix);
    const reader = await open(server.url, prefix);
    t = performance.now();
    await reader.core.products.list(ACCOUNT, { per_page: 20, sort: "-created_at" });
    const firstList = performance.now() - t;
    const quiet: number[] = [];
    for (let i = 0; i < rounds; i++) {
      t = performance.now();
      await reader.core.products.list(ACCOUNT, { per_page: 20, sort: "-created_at" });
      quiet.push(performance.now() - t);
    }
    const afterWrite: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const made = await writer.core.products.create(ACCOUNT, { title: `New ${i}`, price: 5, product_type: "service" });
      t = performance.now();
      const page = await reader.core.products.list(ACCOUNT, { per_page: 20, sort: "-created_at" });
      afterWrite.push(performance.now() - t);
      if (!page.data.some((p) => p.id === made.id)) throw new Error(`read your writes broken: ${made.id} missing from the other core's list`);
    }
    rows.push(
      `${String(size).padStart(7)} products: seed ${(seeded / 1000).toFixed(1)} s, first list (index load) ${ms(firstList)}, ` +
        `list p50 ${ms(percentile(quiet, 50))} p95 ${ms(percentile(quiet, 95))}, ` +
        `list after the other core's write p50 ${ms(percentile(afterWrite, 50))} p95 ${ms(percentile(afterWrite, 95))}`,
    );
    await writer.dispose();
    await reader.dispose();
  }
} finally {
  await server.dispose();
}
const load = `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`;
process.stdout.write(`list latency on Redis (one account, first page of 20, through the core; ${rounds} rounds each; ${load})\n${rows.join("\n")}\n`);
