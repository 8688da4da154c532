/**
 * Writes a data dir in this lp's format into test/formats/data-dirs/format-<N>/, for `data-dirs.test.ts`:
 * run it once when the format changes (`npx tsx test/formats/make-data-dir.ts`), commit the new folder, and
 * keep every older one. It holds what a user's dir holds after a while: over 500 products (three with
 * images, one deleted), a product created with an Idempotency-Key, a generated page with a live site and a
 * checkout submission, and a verified webhook endpoint with succeeded deliveries. `data-dirs.test.ts` reads
 * its facts from `expected.json`, written beside it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DATA_DIR_FORMAT } from "@lp/core";
import { startServer } from "@lp/server";

const target = new URL(`./data-dirs/format-${DATA_DIR_FORMAT}/`, import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "lp-format-"));
const server = await startServer({ storage: "sqlite", dataDir: dir, port: 0, log: null, admin: false, writtenBy: `lp (format ${DATA_DIR_FORMAT} fixture)` });
const { account_id: account, token, application_id, client_secret } = server.credentials;
const image = readFileSync(new URL("../../fixtures/images/coffee-set.png", import.meta.url));

// A receiver that answers the verification challenge and takes every delivery.
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk));
  req.on("end", () => {
    const event = JSON.parse(body) as { type: string; data: { challenge?: string } };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(event.type === "webhook.verification" ? JSON.stringify({ challenge: event.data.challenge }) : "{}");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
const basic = `Basic ${Buffer.from(`${application_id}:${client_secret}`).toString("base64")}`;
const created = await fetch(`${server.url}/v1/developer/webhook-endpoints`, {
  method: "POST",
  headers: { authorization: basic, "content-type": "application/json" },
  body: JSON.stringify({ url: receiverUrl, events: ["product.created", "product.deleted", "checkout.submitted"] }),
});
const endpoint = ((await created.json()) as { data: { id: string; status: string } }).data;
if (endpoint.status !== "active") throw new Error(`the endpoint is ${endpoint.status}, not active`);

const apron = await server.core.products.create(account, { title: "Linen apron", price: 24, product_type: "physical", description: "Stone-washed linen." }, [{ filename: "coffee-set.png", bytes: image }]);
await server.core.products.create(account, { title: "Coffee set", price: 38, product_type: "physical" }, [{ filename: "coffee-set.png", bytes: image }, { filename: "coffee-set.png", bytes: image }]);
await server.core.products.create(account, { title: "Ceramics class", price: 60, product_type: "service" });
for (let i = 0; i < 510; i++) await server.core.products.create(account, { title: `Catalogue item ${i}`, price: 10 + (i % 50), product_type: i % 3 ? "physical" : "service" });
const gone = await server.core.products.create(account, { title: "Discontinued mug", price: 12, product_type: "physical" });
await server.core.products.remove(account, gone.id);

const idempotent = await fetch(`${server.url}/v1/accounts/${account}/products`, {
  method: "POST",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "format-fixture-key-1" },
  body: JSON.stringify({ title: "Gift card", price: 25, product_type: "service" }),
});
const giftCard = ((await idempotent.json()) as { data: { id: string } }).data.id;

const { job_id } = await server.core.pages.create(account, { product_id: apron.id }, null);
await server.core.onIdle();
const pageId = (await server.core.pages.getJob(account, job_id)).page_id!;
await server.core.deployments.start(account, pageId, null);
await server.core.onIdle();
const page = await server.core.pages.get(account, pageId);
const form = new URLSearchParams({ name: "Ada", phone: "+33 1 23 45 67 89", address: "1 rue de la Paix", city: "Paris" });
const checkout = await fetch(`${server.url}${new URL(page.deployed_url!).pathname}checkout`, { method: "POST", body: form, redirect: "manual" });
if (checkout.status >= 400) throw new Error(`checkout answered ${checkout.status}`);
await server.core.onIdle();
const delivered: Array<{ status: string }> = [];
for (let cursor = ""; ; ) {
  const answer = await fetch(`${server.url}/v1/developer/webhook-endpoints/${endpoint.id}/deliveries?per_page=100${cursor && `&cursor=${cursor}`}`, { headers: { authorization: basic } });
  const body = (await answer.json()) as { data: Array<{ status: string }>; pagination: { next_cursor: string | null } };
  delivered.push(...body.data);
  if (!body.pagination.next_cursor) break;
  cursor = encodeURIComponent(body.pagination.next_cursor);
}
await server.close();
receiver.close();

const expected = {
  // The moment the last record was written: the test opens the dir on a clock that starts here.
  written_at: new Date().toISOString(),
  account,
  products: 514,
  with_images: { "Linen apron": 1, "Coffee set": 2 },
  deleted: gone.id,
  idempotency_key: "format-fixture-key-1",
  idempotent_product: giftCard,
  page: pageId,
  slug: page.slug,
  endpoint: endpoint.id,
  deliveries: delivered.length,
  succeeded: delivered.filter((d) => d.status === "succeeded").length,
};
rmSync(target, { recursive: true, force: true });
cpSync(dir, target, { recursive: true, filter: (path) => !/(lp\.lock|\.tmp|-shm)$/.test(path) });
writeFileSync(join(target, "..", `format-${DATA_DIR_FORMAT}.expected.json`), `${JSON.stringify(expected, null, 2)}\n`);
rmSync(dir, { recursive: true, force: true });
console.log(`wrote ${target}`, expected);
