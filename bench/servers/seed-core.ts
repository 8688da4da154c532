/**
 * Fills a Redis store with BENCH_SEED products of the dev account through the products service
 * (`core.products.create`: the write path of a running server, so whatever the core keeps beside its
 * records is written too), in a process of its own that ends before the measured server opens the data:
 * BENCH_REDIS_URL under lp's default prefix, with an in-process lock (this process is the only writer), so
 * creates are not serialised on Redis lock round trips. Prints { productId, seedMs }. A data dir is seeded
 * by `seed-sqlite.ts` instead (the embedded store keeps nothing beside its records).
 */
import { createCore, createLocalLock, createStores, DEFAULT_REDIS_PREFIX, ensureDevCredentials } from "@lp/core";
import { seedThroughCore } from "./seed.js";

const count = Number(process.env.BENCH_SEED ?? "0");
const t0 = performance.now();
const stores = createStores("redis", { url: process.env.BENCH_REDIS_URL!, prefix: DEFAULT_REDIS_PREFIX });
const core = await createCore({ stores, redis: stores.redis, lock: createLocalLock(), publicUrl: () => "http://127.0.0.1", log: () => {} });
const { account_id } = await ensureDevCredentials(core.database, core.clock, core.ids);
const productId = await seedThroughCore(core, account_id, count);
await core.close();
await stores.dispose();
process.stdout.write(`${JSON.stringify({ productId, seedMs: performance.now() - t0 })}\n`);
process.exit(0);
