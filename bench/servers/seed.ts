import { join } from "node:path";
import { cryptoIds, ensureDevCredentials, fsDurableDriver, systemClock, type Core, type ProductRecord } from "@lp/core";
import { toStorage } from "../../core/src/storage/create-storage.js";

/** A product body for seed number `i`. */
export const seedProduct = (i: number) => ({
  title: `${["Desk", "Lamp", "Chair", "Poster"][i % 4]} ${i}`,
  price: (i * 37) % 500,
  product_type: i % 3 ? ("physical" as const) : ("service" as const),
  description: `Seeded product number ${i}`,
});

/**
 * Creates `count` products through the products service, `parallel` at a time, first raising the account's
 * product quota (10,000 by default) to make room for them. Returns the first id.
 */
export async function seedThroughCore(core: Core, accountId: string, count: number, parallel = 64): Promise<string | null> {
  const account = await core.accounts.require(accountId);
  const room = count + 1000;
  if ((account.product_quota ?? 0) < room) await core.stores.data.setItem(`accounts:${accountId}`, { ...account, product_quota: room });
  let first: string | null = null;
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) => core.products.create(accountId, seedProduct(i + j)));
    const made = await Promise.all(batch);
    first ??= made[0].id;
    // Let the webhook fan-out keep up, as it would at a real pace, instead of queueing 100k events at once.
    if ((i / parallel) % 16 === 15) await core.onIdle();
  }
  await core.onIdle();
  return first;
}

/**
 * Fills an fs data dir with `count` product records before a server opens it. The records are the
 * products service's own type, written through the core's fs driver with fsync off (a bulk load):
 * creating them one by one through the service costs five file operations each (the record, and the
 * webhook outbox and event log), which makes a 100k seed take minutes on a slow disk. Returns the
 * first id.
 */
export async function seedFsDir(dataDir: string, count: number): Promise<string | null> {
  const data = toStorage(fsDurableDriver({ base: join(dataDir, "data"), fsync: false }));
  const creds = await ensureDevCredentials(data, systemClock, cryptoIds);
  const start = Date.now() - count;
  const record = (i: number): ProductRecord => {
    const body = seedProduct(i);
    const at = new Date(start + i).toISOString();
    return {
      id: cryptoIds.uuid(),
      account_id: creds.account_id,
      ...body,
      product_type: body.product_type as ProductRecord["product_type"],
      original_price: null,
      delivery_price: null,
      images: [],
      checkout_fields: null,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    };
  };
  let first: string | null = null;
  for (let i = 0; i < count; i += 256) {
    const batch = Array.from({ length: Math.min(256, count - i) }, (_, j) => record(i + j));
    first ??= batch[0].id;
    await Promise.all(batch.map((r) => data.setItem(`acct:${r.account_id}:products:${r.id}`, r as never)));
  }
  await data.dispose();
  return first;
}
