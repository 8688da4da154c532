// One-off probe: where the time of an index load goes (in process, no server).
import { mkdirSync, writeFileSync, existsSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { createStores } from "../core/src/index.js";
import { IndexRegistry } from "../core/src/lists/index-registry.js";
import { toProductEntry } from "../core/src/products/product-view.js";
const dir = "/tmp/lr/data-100k";
const A = "acct_probe";
const prefix = `acct:${A}:products`;
if (!existsSync(join(dir, "data"))) {
  const d = join(dir, "data", "acct", A, "products");
  mkdirSync(d, { recursive: true, mode: 0o700 });
  for (let i = 0; i < 100_000; i++) {
    const id = `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
    const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    writeFileSync(join(d, id), JSON.stringify({ id, account_id: A, title: `Product ${i}`, description: `A product for the restart benchmark, number ${i}.`, price: 10, original_price: null, delivery_price: null, product_type: "physical", images: [], checkout_fields: null, created_at: at, updated_at: at, deleted_at: null }), { mode: 0o600 });
  }
}
for (const round of [1, 2, 3]) {
  const stores = createStores("fs", dir);
  const reg = new IndexRegistry(stores.data, undefined, { snapshots: stores.indexSnapshots });
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t = performance.now();
  const index = await reg.get(prefix, toProductEntry as never);
  const took = performance.now() - t;
  h.disable();
  console.log(`round ${round}: ${index.size} entries in ${took.toFixed(0)} ms, max block ${(h.max / 1e6).toFixed(0)} ms`);
  await reg.settle();
  await reg.flush();
  await stores.dispose();
}
