import { expect, it } from "vitest";
import { createCore } from "../core.js";
import { createManualClock, sha256Hex } from "../deps.js";
import { createBuilderLinks } from "../pages/builder-links.js";
import { createStores } from "../storage/create-storage.js";
import { describeDatabases } from "../testing/databases.js";
import { moveAccountRecords } from "./account-records-move.js";
import { ensureAdminKey, ensureDevCredentials } from "./dev-credentials.js";

const at = "2026-03-01T10:00:00.000Z";
const PAGE = "6f1c2f1e-8a4b-4c3d-9e2f-0a1b2c3d4e5f";
const token = `lp_${"t".repeat(32)}`;
const stray = `lp_${"s".repeat(32)}`;
const builderKey = Buffer.alloc(32, 9).toString("base64");
const dev = { account_id: "acct_dev", token: `lp_${"d".repeat(32)}`, application_id: "app_0123456789abcdef01234567", client_secret: `lpsk_${"c".repeat(32)}` };
const stored = { status: 201, headers: { "content-type": "application/json" }, body: "{\"data\":{\"id\":\"p1\"}}" };
const idemKey = sha256Hex("POST /v1/accounts/shop/products k1");

/** A key-value store as a data dir of before the tables holds the account plane. */
async function olderStores() {
  const stores = createStores("memory");
  const data = stores.data;
  await data.setItem("accounts:shop", { account_id: "shop", environment: "test", currency: "EUR", page_quota: 3, created_at: at });
  await data.setItem("accounts:acct_dev", { account_id: "acct_dev", environment: "production", currency: "USD", page_quota: 100, product_quota: 10_000, media_quota_bytes: 1024, created_at: at });
  await data.setItem(`tokens:${sha256Hex(token)}`, { account_id: "shop", scopes: ["products:read"], expires_at: null, created_at: at });
  await data.setItem(`tokens:${sha256Hex(dev.token)}`, { account_id: "acct_dev", scopes: ["products:read", "products:write"], expires_at: null, created_at: at });
  // A token of an account that is gone: nothing could use it.
  await data.setItem(`tokens:${sha256Hex(stray)}`, { account_id: "gone", scopes: ["products:read"], expires_at: null, created_at: at });
  await data.setItem(`apps:${dev.application_id}`, { application_id: dev.application_id, name: "dev", account_ids: ["acct_dev", "gone"], secret_hash: sha256Hex(dev.client_secret), created_at: at });
  await data.setItem(`idem:shop:${idemKey}`, { fingerprint: sha256Hex("POST /v1/accounts/shop/products\n{}"), response: stored, created_at: at, expires_at: "2026-03-02T10:00:00.000Z" });
  await data.setItem("meta:dev_credentials", dev);
  await data.setItem("meta:admin_key", { key: "lpadm_kept" });
  await data.setItem("meta:builder_key", { value: builderKey });
  return stores;
}

describeDatabases("moving a data dir's account records into the tables", ({ open }) => {
  it("moves accounts, tokens, applications, stored answers and secrets at the first start, and only then", async () => {
    const database = await open();
    const stores = await olderStores();
    const clock = createManualClock(at);
    const core = await createCore({ stores, database, clock, publicUrl: () => "http://lp.test" });
    try {
      expect(await core.accounts.require("shop")).toEqual({ account_id: "shop", environment: "test", currency: "EUR", page_quota: 3, product_quota: 10_000, media_quota_bytes: 500 * 1024 * 1024, created_at: at });
      expect(await core.accounts.authenticateToken(token)).toEqual({ kind: "account", account_id: "shop", scopes: ["products:read"] });
      await expect(core.accounts.authenticateToken(stray)).rejects.toMatchObject({ code: "unauthenticated" });
      expect(await core.accounts.authenticateApp(dev.application_id, dev.client_secret)).toMatchObject({ account_ids: ["acct_dev"] });
      expect(await ensureDevCredentials(database, clock, core.ids)).toEqual(dev);
      expect(await ensureAdminKey(database, clock, core.ids)).toBe("lpadm_kept");
      // Links signed before the upgrade still open: the builder key is the one the store kept.
      const before = createBuilderLinks({ secret: Buffer.from(builderKey, "base64"), clock, publicUrl: () => "http://lp.test" });
      expect(core.pages.builderUrl(PAGE)).toBe(before.url(PAGE));
      expect(await core.idempotency.begin({ account_id: "shop", method: "POST", path: "/v1/accounts/shop/products", key: "k1" }, "{}")).toEqual({ kind: "replay", response: stored });

      // Moved once: what the tables lose later is not brought back from the store's copies.
      await database.db.deleteFrom("tokens").execute();
      expect(await moveAccountRecords(stores.data, database, clock)).toBe(0);
      expect(await database.db.selectFrom("tokens").select("token_hash").execute()).toEqual([]);
    } finally {
      await core.close();
      await stores.dispose();
    }
  });

  it("moves nothing from a store that holds no account records", async () => {
    const database = await open();
    const stores = createStores("memory");
    try {
      expect(await moveAccountRecords(stores.data, database, createManualClock(at))).toBe(0);
      expect(await database.db.selectFrom("accounts").select("account_id").execute()).toEqual([]);
    } finally {
      await stores.dispose();
    }
  });
});
