/**
 * Fills BENCH_DIR with BENCH_SEED products through the core (fs driver, fsync off: a bulk load) in a
 * process of its own, so the server that opens the folder afterwards starts clean. Prints
 * { productId, seedMs }.
 */
import { seedFsDir } from "./seed.js";

const t0 = performance.now();
const productId = await seedFsDir(process.env.BENCH_DIR!, Number(process.env.BENCH_SEED ?? "0"));
process.stdout.write(`${JSON.stringify({ productId, seedMs: performance.now() - t0 })}\n`);
process.exit(0);
