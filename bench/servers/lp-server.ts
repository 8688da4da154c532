/**
 * lp's server for the benchmark, seeded before it reports. Environment: BENCH_STORAGE (memory | sqlite | postgres),
 * BENCH_DIR (data dir of sqlite), BENCH_DATABASE_URL (with postgres), BENCH_SEED (products to create first), BENCH_SITE=1
 * (generate and deploy a page of the product: `path` is then its live site's path), BENCH_FIRST_LIST=0 (report
 * before any list or write: the first request the bench sends is then the process's first use), BENCH_WEBHOOK_URL
 * (an endpoint of the dev application at that URL, subscribed to product.created, registered before it reports,
 * as `lp listen` registers one). Prints one JSON line:
 * { url, account, token, productId, seedMs, firstListMs, path? }.
 */
import { endpointCreateSchema, productListSchema } from "@lp/core";
import { startServer } from "../../server/src/serve.js";
import { seedPostgres, seedSqliteDir, seedThroughCore } from "./seed.js";

const storage = process.env.BENCH_STORAGE === "sqlite" ? "sqlite" : process.env.BENCH_STORAGE === "postgres" ? "postgres" : "memory";
const count = Number(process.env.BENCH_SEED ?? "0");
const dataDir = process.env.BENCH_DIR;

let seedMs = 0;
let productId: string | null = null;
// The stores with a database below the process are filled in bulk before it opens them; memory through the core.
if (storage !== "memory" && count > 0) {
  const t0 = performance.now();
  productId = storage === "sqlite" ? await seedSqliteDir(dataDir!, count) : await seedPostgres(process.env.BENCH_DATABASE_URL!, count);
  seedMs = performance.now() - t0;
}

// BENCH_ADMIN=0 turns the admin API and the dashboard (and its request log) off.
const server = await startServer({ storage, dataDir, databaseUrl: process.env.BENCH_DATABASE_URL, port: 0, log: null, admin: process.env.BENCH_ADMIN !== "0" });
const account = server.credentials.account_id;
if (storage === "memory" && count > 0) {
  const t0 = performance.now();
  productId = await seedThroughCore(server.core, account, count);
  seedMs = performance.now() - t0;
}
const listFirst = process.env.BENCH_FIRST_LIST !== "0";
// The load POSTs tens of thousands of products: the account's product quota (10,000 by default) is not
// what is measured. Left alone when the process must report before any write.
if (listFirst) {
  await server.core.database.db.updateTable("accounts").set({ product_quota: 10_000_000 }).where("account_id", "=", account).execute();
}
// The process's first listing (its statements not yet prepared, the pages not yet cached): reported apart from the warm figures.
const t1 = performance.now();
const first = listFirst ? await server.core.products.list(account, productListSchema.parse({ per_page: "20" })) : null;
const firstListMs = listFirst ? performance.now() - t1 : NaN;
productId ??= first?.data[0]?.id ?? null;
if (listFirst) productId ??= (await server.core.products.create(account, { title: "Only", price: 1, product_type: "service" })).id;
if (process.env.BENCH_WEBHOOK_URL) {
  await server.core.webhooks.endpoints.create(server.credentials.application_id, endpointCreateSchema.parse({ url: process.env.BENCH_WEBHOOK_URL, events: ["product.created"] }));
  await server.core.onIdle();
}
let path: string | undefined;
if (process.env.BENCH_SITE === "1") {
  if (!productId) throw new Error("BENCH_SITE=1 needs a product: leave BENCH_FIRST_LIST on");
  const { job_id } = await server.core.pages.create(account, { product_id: productId }, null);
  await server.core.onIdle();
  const pageId = (await server.core.pages.getJob(account, job_id)).page_id!;
  await server.core.deployments.start(account, pageId, null);
  await server.core.onIdle();
  path = new URL((await server.core.pages.get(account, pageId)).deployed_url!).pathname;
}
(globalThis as { gc?: () => void }).gc?.();

process.stdout.write(`${JSON.stringify({ url: server.url, account, token: server.credentials.token, productId, seedMs, firstListMs, path })}\n`);
process.on("SIGTERM", async () => {
  await server.close();
  process.exit(0);
});
