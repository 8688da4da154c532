import { afterEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { testStorages } from "../testing/test-app.js";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

/** The store a key belongs to, as the import's schemas group them (`acct:x:products:y` → `products`). */
const storeOf = (key: string) => (key.startsWith("acct:") ? key.split(":")[2]! : key.split(":").slice(0, key.startsWith("webhooks:") ? 2 : 1).join(":"));

for (const storage of testStorages()) {
  describe(`admin import (${storage})`, () => {
    let t: WebhookTestApp;
    afterEach(() => t?.close());

    /** A server holding a record of every kind a running service keeps, and its export. */
    async function populated() {
      t = await createWebhookTestApp({ storage });
      const receiver = await t.receiver();
      await t.endpoint(receiver, { events: ["product.created", "page.created"] });
      const form = new FormData();
      for (const [name, value] of Object.entries({ title: "Poster", price: "12.5", product_type: "physical" })) form.set(name, value);
      form.append("images", new Blob([PNG]), "p.png");
      expect((await t.call("POST", "products", { raw: form, headers: { "idempotency-key": "import-test" } })).status).toBe(201);
      const gone = await t.product("Gone");
      expect((await t.call("DELETE", `products/${gone.id}`)).status).toBe(204);
      const job = await t.call("POST", "pages", { body: { product: { title: "Mug", description: "Stoneware.", price: 9, product_type: "physical" } } });
      await t.settle();
      const pageId = (await t.call("GET", job.json.data.poll_url)).json.data.page_id;
      const deployment = await t.call("POST", `pages/${pageId}/deployments`);
      await t.settle();
      const site = (await t.call("GET", deployment.json.data.poll_url)).json.data.deployed_url as string;
      const checkout = await t.app.request(`${new URL(site).pathname}checkout`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "name=Ada&phone=%2B33+1+23+45+67+89&address=1+Road&city=Paris" });
      expect(checkout.status, await checkout.clone().text()).toBe(200);
      await t.admin("POST", "/_admin/accounts", { account_id: "shop", product_quota: 5 });
      await t.admin("POST", "/_admin/apps", { name: "Partner", account_ids: ["shop"] });
      await t.settle();
      const exported = (await t.admin("GET", "/_admin/export")).json;
      return { exported, pageId };
    }

    it("imports a real export holding every kind of record, and exports the same again", async () => {
      const { exported } = await populated();
      const stores = new Set(Object.keys(exported.records).map(storeOf));
      for (const store of ["accounts", "tokens", "apps", "products", "pages", "jobs", "deployments", "checkouts", "pageowners", "sites", "sitefiles", "idem", "webhooks:endpoints", "webhooks:deliveries"]) {
        expect(stores, store).toContain(store);
      }
      expect((await t.admin("POST", "/_admin/reset")).status).toBe(200);
      const imported = await t.admin("POST", "/_admin/import", exported);
      expect(imported.status, imported.text).toBe(200);
      expect(imported.json.data).toEqual({ records: Object.keys(exported.records).length, media: Object.keys(exported.media).length });
      const again = (await t.admin("GET", "/_admin/export")).json;
      expect({ ...again, exported_at: null }).toEqual({ ...exported, exported_at: null });
    });

    it("refuses a document with invalid records with a 400 naming each bad key, and changes nothing", async () => {
      const { exported, pageId } = await populated();
      const keys = Object.keys(exported.records);
      const productKey = keys.find((k) => /^acct:[^:]+:products:/.test(k) && !exported.records[k].deleted_at)!;
      const pageKey = keys.find((k) => k.endsWith(`:pages:${pageId}`))!;
      const bad = {
        ...exported,
        records: { ...exported.records, [productKey]: "garbage", [pageKey]: { ...exported.records[pageKey], status: "live" }, "accounts:shop": { account_id: "shop" }, "nothing:here": {} },
        media: { ...exported.media, "products:x:y.png": "not base64!" },
      };
      const before = (await t.admin("GET", "/_admin/export")).json;
      const err = expectError(await t.admin("POST", "/_admin/import", bad), 400, "validation_error");
      expect(err.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
        [`records.${productKey}`, `records.${pageKey}`, "records.accounts:shop", "records.nothing:here", "media.products:x:y.png"].sort(),
      );
      expect(err.details.issues.find((i: { path: string }) => i.path === "records.nothing:here").code).toBe("unknown_store");
      const after = (await t.admin("GET", "/_admin/export")).json;
      expect({ ...after, exported_at: null }).toEqual({ ...before, exported_at: null });
      // The product reads as before: nothing was cleared.
      const id = productKey.split(":").at(-1);
      expect((await t.call("GET", `products/${id}`)).json.data.title).toBe(exported.records[productKey].title);
    });
  });
}
