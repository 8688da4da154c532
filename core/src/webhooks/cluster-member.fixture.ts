/**
 * Child process of the cluster tests: one member of a webhook cluster on a Redis, on the Redis stores.
 * - `member`: prints `ready` and runs (takes jobs) until it is killed.
 * - `one`: creates an endpoint for `<receiver-url>` (2 s attempt timeout), emits one `product.created`,
 *   prints `emitted`, and runs until it is killed.
 * Every request it sends carries `x-member: <pid>`, so a test knows which process sent an attempt.
 * - `fanout <n>`: creates `n` endpoints (`<receiver-url>/<i>`), emits one `product.created`, and kills
 *   itself (SIGKILL) when a fan-out in it stores the 121st delivery (past the first batch of a hundred).
 * Usage: node --import tsx cluster-member.fixture.ts <redis-url> <receiver-url> one|fanout [n]
 */
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { cryptoIds } from "../deps.js";
import { createStores } from "../storage/create-storage.js";
import { endpointCreateSchema } from "./schemas.js";

const [redisUrl, receiverUrl, mode, count] = process.argv.slice(2);
const stores = createStores("redis", { url: redisUrl, prefix: "lp:" });
const endpoints = mode === "fanout" ? Number(count) : 1;
let armed = false;
let deliveriesStored = 0;
// The crash: a real SIGKILL between two writes of the fan-out (a delivery is written in a batch on a shared
// store, alone otherwise), as a process dying mid-way.
const crashAt = (key: string) => armed && key.startsWith("webhooks:deliveries:") && ++deliveriesStored > 120 && process.kill(process.pid, "SIGKILL");
const batch = stores.batch.bind(stores);
stores.batch = async (ops) => {
  for (const op of ops) crashAt(op.key);
  return batch(ops);
};
const setItem = stores.data.setItem.bind(stores.data);
stores.data.setItem = ((key: string, value: never, opts?: never) => {
  crashAt(key);
  return setItem(key, value, opts);
}) as typeof stores.data.setItem;
const core = await createCore({
  stores,
  publicUrl: () => "http://lp.test",
  fetch: (url, init) => globalThis.fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), "x-member": String(process.pid) } }),
  webhooks: { cluster: { url: redisUrl, prefix: "lp:", stallMs: 1000 }, deliveryTimeoutMs: 2000, maxEndpoints: 1000 },
});
const creds = await ensureDevCredentials(core.database, core.clock, cryptoIds);
if (mode === "member") {
  process.stdout.write("ready\n");
  setInterval(() => {}, 60_000);
} else {
  await emit();
}

async function emit(): Promise<void> {
  for (let i = 0; i < endpoints; i++) {
    await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url: mode === "fanout" ? `${receiverUrl}/${i}` : receiverUrl, events: ["product.created"] }));
}
armed = mode === "fanout";
await core.products.create(creds.account_id, { title: "Owed", price: 5, product_type: "service" });
process.stdout.write("emitted\n");
setInterval(() => {}, 60_000);
}
