/**
 * Fills the data dir BENCH_DIR with BENCH_SEED products (its database, in transactions of 1,000: a bulk
 * load, `seed.ts`) in a process of its own, so the server that opens the dir afterwards starts clean.
 * Prints { productId, seedMs }.
 */
import { seedSqliteDir } from "./seed.js";

const t0 = performance.now();
const productId = await seedSqliteDir(process.env.BENCH_DIR!, Number(process.env.BENCH_SEED ?? "0"));
process.stdout.write(`${JSON.stringify({ productId, seedMs: performance.now() - t0 })}\n`);
process.exit(0);
