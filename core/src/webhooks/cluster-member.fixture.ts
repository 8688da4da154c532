/**
 * Child process of the cluster tests: one member of a webhook cluster on a Redis. It creates an endpoint
 * for `<receiver-url>` (concurrency 4, 2 s attempt timeout), emits one `product.created`, prints `emitted`,
 * and runs until it is killed.
 * Usage: node --import tsx cluster-member.fixture.ts <redis-url> <receiver-url>
 */
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { cryptoIds } from "../deps.js";
import { createStores } from "../storage/create-storage.js";

const [redisUrl, receiverUrl] = process.argv.slice(2);
const stores = createStores("redis", { url: redisUrl, prefix: "lp:" });
const core = await createCore({
  stores,
  publicUrl: () => "http://lp.test",
  webhooks: { cluster: { url: redisUrl, prefix: "lp:", stallMs: 1000 }, deliveryTimeoutMs: 2000 },
});
const creds = await ensureDevCredentials(stores.data, core.clock, cryptoIds);
await core.webhooks.endpoints.create(creds.application_id, { url: receiverUrl, events: ["product.created"] });
await core.products.create(creds.account_id, { kind: "json", body: { title: "Owed", price: 5, product_type: "service" } });
process.stdout.write("emitted\n");
setInterval(() => {}, 60_000);
