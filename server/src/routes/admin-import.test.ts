import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// The tables an export carries, and the reader of a format-2 database: core internals, reached by path as tests do.
import { EXPORTED_TABLES } from "../../../core/src/db/data-transfer.js";
import { readFormat2File } from "../../../core/src/db/import-records.js";
import { expectError } from "../testing/expect-error.js";
import { testStorages } from "../testing/test-app.js";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
/** A product created with an Idempotency-Key, whose stored answer an import keeps. */
const KEYED = { title: "Lamp", price: 30, product_type: "physical" };
const fixture = new URL("../../../test/formats/data-dirs/format-2", import.meta.url).pathname;

/** The committed format-2 data dir as the export of version 1 an lp of format 2 wrote (no meta keys). */
let format2: { format: "lp-export"; version: 1; exported_at: string; records: Record<string, unknown>; media: Record<string, string> };
let scratch = "";
beforeAll(() => {
  // A copy: opening a database may fold its write-ahead log into it, and the committed files stay as they are.
  scratch = mkdtempSync(join(tmpdir(), "lp-admin-import-"));
  cpSync(fixture, scratch, { recursive: true });
  const source = readFormat2File(join(scratch, "lp.db"));
  const records = Object.fromEntries([...source.records].filter(([key]) => !key.startsWith("meta:")));
  const media = Object.fromEntries([...source.media].map(([key, bytes]) => [key, Buffer.from(bytes).toString("base64")]));
  format2 = { format: "lp-export", version: 1, exported_at: "2026-11-28T15:38:00.000Z", records, media };
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

for (const storage of testStorages()) {
  describe(`admin import (${storage})`, () => {
    let t: WebhookTestApp;
    afterEach(() => t?.close());

    /** A server holding a row in every table a running service fills, and its export. */
    async function populated() {
      t = await createWebhookTestApp({ storage });
      const receiver = await t.receiver();
      await t.endpoint(receiver, { events: ["product.created", "page.created"] });
      const form = new FormData();
      for (const [name, value] of Object.entries({ title: "Poster", price: "12.5", product_type: "physical" })) form.set(name, value);
      form.append("images", new Blob([PNG]), "p.png");
      expect((await t.call("POST", "products", { raw: form })).status).toBe(201);
      expect((await t.call("POST", "products", { body: KEYED, headers: { "idempotency-key": "import-test" } })).status).toBe(201);
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
      return { exported, site };
    }

    it("imports a real export holding a row of every table, and exports the same again", async () => {
      const { exported, site } = await populated();
      expect(exported.version).toBe(3);
      for (const table of EXPORTED_TABLES) expect(exported.tables[table]?.length, table).toBeGreaterThan(0);
      expect((await t.admin("POST", "/_admin/reset")).status).toBe(200);
      expect((await t.app.request(new URL(site).pathname)).status).toBe(404);
      const imported = await t.admin("POST", "/_admin/import", exported);
      expect(imported.status, imported.text).toBe(200);
      const rows = Object.fromEntries(EXPORTED_TABLES.map((table) => [table, exported.tables[table].length]));
      expect(imported.json.data).toEqual({ records: Object.values(rows).reduce((sum, n) => sum + n, 0), media: Object.keys(exported.media).length, tables: rows, left: [] });
      const again = (await t.admin("GET", "/_admin/export")).json;
      expect({ ...again, exported_at: null }).toEqual({ ...exported, exported_at: null });
      // Served as before: the live site, and the stored answer of the Idempotency-Key.
      expect(await (await t.app.request(new URL(site).pathname)).text()).toContain("Mug");
      const replay = await t.call("POST", "products", { body: KEYED, headers: { "idempotency-key": "import-test" } });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.json.data.title).toBe("Lamp");
    });

    it("refuses a document a row of which the database refuses with a 400 naming it, and changes nothing", async () => {
      const { exported } = await populated();
      // The token of an account the document does not hold: the foreign key refuses it.
      const bad = { ...exported, tables: { ...exported.tables, tokens: [...exported.tables.tokens, { ...exported.tables.tokens[0], token_hash: "f".repeat(64), account_id: "nobody" }] } };
      const err = expectError(await t.admin("POST", "/_admin/import", bad), 400, "validation_error");
      expect(err.details.issues).toEqual([expect.objectContaining({ path: "tables", code: "refused_by_database" })]);
      const after = (await t.admin("GET", "/_admin/export")).json;
      expect({ ...after, exported_at: null }).toEqual({ ...exported, exported_at: null });
    });

    it("imports an export of format 2 (version 1), leaving out and naming the records that name what it does not hold", async () => {
      t = await createWebhookTestApp({ storage });
      const token = Object.keys(format2.records).find((key) => key.startsWith("tokens:"))!;
      const stray = `tokens:${"e".repeat(64)}`;
      const doc = { ...format2, records: { ...format2.records, [stray]: { ...(format2.records[token] as object), account_id: "gone" } } };
      const imported = await t.admin("POST", "/_admin/import", doc);
      expect(imported.status, imported.text).toBe(200);
      expect(imported.json.data.left).toEqual([{ key: stray, reason: "names account gone, which is not there" }]);
      expect(imported.json.data.tables.products).toBe(515);
      expect(imported.json.data.media).toBe(Object.keys(format2.media).length);
      // The fixture's dev account is this server's too: its own token works on the imported products.
      const listed = await t.call("GET", "products?per_page=100");
      expect(listed.status).toBe(200);
      expect(listed.json.data).toHaveLength(100);
      expect((await t.admin("GET", "/_admin/export")).json.tables.products).toHaveLength(515);
    });

    it("refuses an export of format 2 with invalid records with a 400 naming each bad key, and changes nothing", async () => {
      const { exported } = await populated();
      const keys = Object.keys(format2.records);
      const productKey = keys.find((k) => /^acct:[^:]+:products:/.test(k))!;
      const pageKey = keys.find((k) => /^acct:[^:]+:pages:/.test(k))!;
      const bad = {
        ...format2,
        records: { ...format2.records, [productKey]: "garbage", [pageKey]: { ...(format2.records[pageKey] as object), status: "live" }, "accounts:shop": { account_id: "shop" }, "nothing:here": {} },
        media: { ...format2.media, "products:x:y.png": "not base64!" },
      };
      const err = expectError(await t.admin("POST", "/_admin/import", bad), 400, "validation_error");
      expect(err.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
        [`records.${productKey}`, `records.${pageKey}`, "records.accounts:shop", "records.nothing:here", "media.products:x:y.png"].sort(),
      );
      expect(err.details.issues.find((i: { path: string }) => i.path === "records.nothing:here").code).toBe("unknown_store");
      const after = (await t.admin("GET", "/_admin/export")).json;
      expect({ ...after, exported_at: null }).toEqual({ ...exported, exported_at: null });
    });
  });
}
