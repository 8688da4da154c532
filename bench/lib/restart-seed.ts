/**
 * The products of the restart benchmarks (`bench/list-restart.ts`, `bench/profile-restart.ts`): `count` of
 * them in one account, written below the server (no fsync on fs; batches of 500 on Redis) so a restarted
 * server finds them with no persisted index.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createStores } from "../../core/src/index.js";

/** Product `i` of `account`: ids and creation times both sort by `i`. */
export function restartProduct(account: string, i: number) {
  const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return { id, account_id: account, title: `Product ${i}`, description: `A product for the restart benchmark, number ${i}.`, price: 10 + (i % 90), original_price: null, delivery_price: null, product_type: i % 3 ? "physical" : "service", images: [], checkout_fields: null, created_at: at, updated_at: at, deleted_at: null };
}

/** Writes the products into an fs data dir's records folder (the server reads them as any others). */
export function seedFsProducts(dataDir: string, account: string, count: number): void {
  const dir = join(dataDir, "data", "acct", account, "products");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < count; i++) {
    const r = restartProduct(account, i);
    writeFileSync(join(dir, r.id), JSON.stringify(r), { mode: 0o600 });
  }
}

/** Writes the products to a Redis store under the default prefix. */
export async function seedRedisProducts(url: string, account: string, count: number): Promise<void> {
  const stores = createStores("redis", { url });
  for (let start = 0; start < count; start += 500) {
    const ops = [];
    for (let i = start; i < Math.min(count, start + 500); i++) ops.push({ key: `acct:${account}:products:${restartProduct(account, i).id}`, value: restartProduct(account, i) });
    await stores.batch(ops);
  }
  await stores.dispose();
}
