/**
 * Child process of the cluster tests: one member of a webhook cluster on a Redis, on the Redis stores.
 * - `one`: creates an endpoint for `<receiver-url>` (2 s attempt timeout), emits one `product.created`,
 *   prints `emitted`, and runs until it is killed.
 * - `fanout <n>`: creates `n` endpoints (`<receiver-url>/<i>`), emits one `product.created`, and kills
 *   itself (SIGKILL) while its fan-out stores the delivery for the endpoint past the first hundred.
 * Usage: node --import tsx cluster-member.fixture.ts <redis-url> <receiver-url> one|fanout [n]
 */
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { cryptoIds } from "../deps.js";
import { createStores } from "../storage/create-storage.js";

const [redisUrl, receiverUrl, mode, count] = process.argv.slice(2);
const stores = createStores("redis", { url: redisUrl, prefix: "lp:" });
const endpoints = mode === "fanout" ? Number(count) : 1;
let armed = false;
let deliveriesStored = 0;
const batch = stores.batch.bind(stores);
// The crash: a real SIGKILL between two writes of the fan-out, as a process dying mid-way.
stores.batch = async (ops) => {
  if (armed && ops.some((op) => op.key.startsWith("webhooks:deliveries:")) && ++deliveriesStored > 120) process.kill(process.pid, "SIGKILL");
  return batch(ops);
};
const core = await createCore({
  stores,
  publicUrl: () => "http://lp.test",
  webhooks: { cluster: { url: redisUrl, prefix: "lp:", stallMs: 1000 }, deliveryTimeoutMs: 2000, maxEndpoints: 1000 },
});
const creds = await ensureDevCredentials(stores.data, core.clock, cryptoIds);
for (let i = 0; i < endpoints; i++) {
  await core.webhooks.endpoints.create(creds.application_id, { url: mode === "fanout" ? `${receiverUrl}/${i}` : receiverUrl, events: ["product.created"] });
}
armed = mode === "fanout";
await core.products.create(creds.account_id, { title: "Owed", price: 5, product_type: "service" });
process.stdout.write("emitted\n");
setInterval(() => {}, 60_000);
