import { sql } from "kysely";
import { cryptoIds, ensureDevCredentials, systemClock, type Core, type ProductRecord } from "@lp/core";
import { openDatabase, type Database } from "../../core/src/db/database.js";
import { openDataDir } from "../../core/src/db/open-data-dir.js";
import { toProductRow } from "../../core/src/products/product-repository.js";

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
  if (account.product_quota < room) await core.database.db.updateTable("accounts").set({ product_quota: room }).where("account_id", "=", accountId).execute();
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
 * Fills a database with `count` product records before a server opens it: the products service's own record
 * type, written below the service in transactions of 1,000 (a bulk load). Through the service each product is
 * a transaction of its own with its event, which makes a 100k seed minutes of fsyncs on a slow disk;
 * what is measured afterwards reads the same rows. The dev credentials are created first, as `lp serve`
 * would, so the server that opens the database finds them. Returns the first id.
 */
export async function seedDatabase(database: Database, count: number): Promise<string | null> {
  const creds = await ensureDevCredentials(database, systemClock, cryptoIds);
  await database.db.updateTable("accounts").set({ product_quota: count + 1000 }).where("account_id", "=", creds.account_id).where("product_quota", "<", count + 1000).execute();
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
  for (let i = 0; i < count; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - i) }, (_, j) => record(i + j));
    first ??= batch[0].id;
    await database.transaction(async (tx) => {
      for (let at = 0; at < batch.length; at += 500) await tx.insertInto("products").values(batch.slice(at, at + 500).map(toProductRow)).execute();
    });
  }
  // What a server that has run a while would have: the planner's statistics of the new rows.
  if (database.dialect === "postgres") await sql`ANALYZE`.execute(database.db);
  return first;
}

/** {@link seedDatabase} on a data dir, opened (and marked) as lp opens one, so the server that opens it next starts as on a user's dir. */
export async function seedSqliteDir(dataDir: string, count: number): Promise<string | null> {
  const database = await openDataDir(dataDir, { log: () => {}, writtenBy: "lp bench seed" });
  try {
    return await seedDatabase(database, count);
  } finally {
    await database.close();
  }
}

/** {@link seedDatabase} on a PostgreSQL database, migrated as `lp serve` would. */
export async function seedPostgres(url: string, count: number): Promise<string | null> {
  const database = await openDatabase({ kind: "postgres", url });
  try {
    return await seedDatabase(database, count);
  } finally {
    await database.close();
  }
}
