/**
 * Fills a store with BENCH_SEED products of the dev account through the products service
 * (`core.products.create`: the write path of a running server, so whatever the core keeps beside its
 * records is written too), in a process of its own that ends before the measured server opens the data.
 * BENCH_STORAGE=fs: the data dir BENCH_DIR, its fs driver with fsync off (a bulk load: with fsync, 100,000
 * creates take minutes on a small VM). BENCH_STORAGE=redis: BENCH_REDIS_URL under lp's default prefix,
 * with an in-process lock (this process is the only writer), so creates are not serialised on Redis lock
 * round trips. Prints { productId, seedMs }.
 */
import { join } from "node:path";
import { createCore, createLocalLock, createStores, DEFAULT_REDIS_PREFIX, ensureDevCredentials, fsDurableDriver, type Stores } from "@lp/core";
import { applyInOrder, toStorage } from "../../core/src/storage/create-storage.js";
import { seedThroughCore } from "./seed.js";

const count = Number(process.env.BENCH_SEED ?? "0");
const t0 = performance.now();

async function open(): Promise<Stores> {
  if (process.env.BENCH_STORAGE === "redis") return createStores("redis", { url: process.env.BENCH_REDIS_URL!, prefix: DEFAULT_REDIS_PREFIX });
  const dir = process.env.BENCH_DIR!;
  const stores = createStores("sqlite", dir);
  await stores.data.dispose();
  const data = toStorage(fsDurableDriver({ base: join(dir, "data"), fsync: false }));
  return { ...stores, data, batch: (ops) => applyInOrder(data, ops), dispose: () => Promise.all([data.dispose(), stores.media.dispose()]).then(() => {}) };
}

const stores = await open();
const core = await createCore({ stores, redis: stores.redis, lock: createLocalLock(), publicUrl: () => "http://127.0.0.1", log: () => {} });
const { account_id } = await ensureDevCredentials(stores.data, core.clock, core.ids);
const productId = await seedThroughCore(core, account_id, count);
await core.close();
await stores.dispose();
process.stdout.write(`${JSON.stringify({ productId, seedMs: performance.now() - t0 })}\n`);
process.exit(0);
