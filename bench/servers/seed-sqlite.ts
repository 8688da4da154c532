/**
 * Fills a database with BENCH_SEED products in a process of its own (in transactions of 1,000: a bulk load,
 * `seed.ts`), so the server that opens it afterwards starts clean and its footprint is its own: the data dir
 * BENCH_DIR, or with BENCH_DATABASE_URL that PostgreSQL database. Prints { productId, seedMs }.
 */
import { seedPostgres, seedSqliteDir } from "./seed.js";

const t0 = performance.now();
const count = Number(process.env.BENCH_SEED ?? "0");
const url = process.env.BENCH_DATABASE_URL;
const productId = url ? await seedPostgres(url, count) : await seedSqliteDir(process.env.BENCH_DIR!, count);
process.stdout.write(`${JSON.stringify({ productId, seedMs: performance.now() - t0 })}\n`);
process.exit(0);
