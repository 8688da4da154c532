/**
 * What bounds a write on the embedded store: `npx tsx bench/profile-commits.ts [count]` (default 2000; no
 * build needed). In this process, on a fresh data dir in the temp folder (its disk):
 * 1. durable commits of the store itself (`stores.batch` of a record and an outbox entry, as a product
 *    create writes), by one caller after another, then by 10 callers at once (the writer thread commits
 *    what arrived together in one transaction, one fsync);
 * 2. `core.products.create` by 10 callers at once into one account, then into 10 accounts (one caller
 *    each), on sqlite and on memory: creates into one account used to wait for each other's commit under the
 *    account's quota lock; they now reserve their share and commit together (`products/product-room.ts`).
 * Prints each rate; rounds alternate so a neighbour's burst of CPU skews both sides alike. One-off.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountSchema, createCore, createLocalLock, createStores, productCreateSchema, type StorageKind } from "@lp/core";

const count = Number(process.argv[2] ?? 2000);
const CALLERS = 10;
const work = mkdtempSync(join(tmpdir(), "profile-commits-"));
const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString("en-US")}/s`;

/** `count` batches of two writes, `callers` at a time, each caller waiting for its commit before the next. */
async function commits(callers: number): Promise<string> {
  const stores = createStores("sqlite", mkdtempSync(join(work, "commits-")));
  try {
    let next = 0;
    const record = (i: number) => ({ id: `p${i}`, title: "A product of the commit benchmark", price: 1, created_at: new Date(Date.UTC(2026, 0, 1) + i).toISOString() });
    await stores.batch([{ key: "acct:a:products:warm", value: record(-1) }]);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: callers }, async () => {
        for (let i = next++; i < count; i = next++) await stores.batch([{ key: `acct:a:products:p${i}`, value: record(i) }, { key: `outbox:e${i}`, value: record(i) }]);
      }),
    );
    const ms = performance.now() - t0;
    return `commits of a record and an outbox entry, ${callers} caller(s): ${rate(count, ms)} (${((ms * callers) / count).toFixed(2)} ms each as its caller waits)`;
  } finally {
    await stores.dispose();
  }
}

/** `count` product creates by {@link CALLERS} callers, into one account or one account each. */
async function creates(kind: StorageKind, spread: boolean): Promise<string> {
  const stores = createStores(kind, kind === "sqlite" ? mkdtempSync(join(work, "core-")) : undefined);
  const core = await createCore({ stores, lock: createLocalLock(), publicUrl: () => "http://127.0.0.1", log: () => {} });
  try {
    const accounts: string[] = [];
    for (let i = 0; i < CALLERS; i++) accounts.push((await core.accounts.create(createAccountSchema.parse({ product_quota: count + 1000 }))).account_id);
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      accounts.map(async (own) => {
        for (let i = next++; i < count; i = next++) await core.products.create(spread ? own : accounts[0]!, productCreateSchema.parse({ title: `Product ${i}`, price: 1, product_type: "physical" }));
      }),
    );
    const ms = performance.now() - t0;
    await core.onIdle();
    return `products.create (${kind}), ${CALLERS} callers into ${spread ? `${CALLERS} accounts` : "one account"}: ${rate(count, ms)}`;
  } finally {
    await core.close();
    await stores.dispose();
  }
}

const lines: string[] = [];
const load = () => loadavg()[0]!.toFixed(1);
try {
  const before = load();
  await commits(1);
  for (let round = 0; round < 2; round++) for (const callers of [1, CALLERS]) lines.push(await commits(callers));
  for (let round = 0; round < 2; round++) {
    for (const kind of ["memory", "sqlite"] as const) for (const spread of [false, true]) lines.push(await creates(kind, spread));
  }
  process.stdout.write(`${lines.join("\n")}\n(load average ${before} -> ${load()} on ${availableParallelism()} CPUs)\n`);
} finally {
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
