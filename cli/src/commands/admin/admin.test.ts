import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";
import { toOptions as tokenOptions } from "./tokens-create.js";

describe("admin: parsing", () => {
  it("reads scopes and a lifetime in seconds", () => {
    expect(tokenOptions({ args: ["acct"], flags: { scopes: "products:read,pages:read", expiresIn: "1h" } }).body).toEqual({
      account_id: "acct", scopes: ["products:read", "pages:read"], expires_in: 3600,
    });
    expect(tokenOptions({ args: ["acct"], flags: { expiresIn: "30d" } }).body.expires_in).toBe(30 * 86_400);
  });
});

describe("admin: commands against the app", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  it("creates an account, a scoped token and an app; the token's missing scope exits 4", async () => {
    const account = (await h.lp(["admin", "accounts", "create", "--id", "acct_shop", "--currency", "EUR", "--json"])).json();
    expect(account).toMatchObject({ account_id: "acct_shop", currency: "EUR" });
    const token = (await h.lp(["admin", "tokens", "create", "acct_shop", "--scopes", "products:read", "--json"])).json();
    expect(token).toMatchObject({ account_id: "acct_shop", scopes: ["products:read"] });
    const app = (await h.lp(["admin", "apps", "create", "--name", "Partner", "--accounts", "acct_shop", "--json"])).json();
    expect(app).toMatchObject({ name: "Partner", account_ids: ["acct_shop"] });
    const env = { LP_TOKEN: token.token, LP_ACCOUNT: "acct_shop" };
    expect((await h.lp(["products", "list", "--json"], { env })).json()).toEqual([]);
    const denied = await h.lp(["products", "create", "--title", "x", "--price", "1", "--type", "service"], { env });
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain("code: insufficient_scope");
    expect((await h.lp(["products", "list"], { env: { LP_ACCOUNT: "acct_shop" } })).code).toBe(4);
  });

  it("exports to a 0600 file, resets (with --yes only, off a terminal) and imports it back", async () => {
    await h.lp(["products", "create", "--title", "Kept", "--price", "1", "--type", "service"]);
    const exported = await h.lp(["admin", "export", "--output", "backup.json"]);
    expect(exported.code).toBe(0);
    const path = join(h.home, "backup.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const doc = JSON.parse(readFileSync(path, "utf8"));
    expect(doc).toMatchObject({ format: "lp-export", version: 3 });
    const rows = Object.values(doc.tables as Record<string, unknown[]>).reduce((sum, list) => sum + list.length, 0);
    expect(exported.stderr).toContain(`Wrote ${rows} rows and 0 media files to ${path}.`);
    const refused = await h.lp(["admin", "reset"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Missing --yes");
    expect((await h.lp(["admin", "reset", "--yes"])).code).toBe(0);
    expect((await h.lp(["products", "list", "--json"])).json()).toEqual([]);
    const imported = await h.lp(["admin", "import", "backup.json", "--json"]);
    expect(imported.json()).toMatchObject({ records: rows, media: 0, left: [] });
    expect(imported.json().tables.products).toBe(1);
    expect((await h.lp(["products", "list", "--json"])).json().map((p: { title: string }) => p.title)).toEqual(["Kept"]);
    expect((await h.lp(["admin", "import", "backup.json"])).stderr).toBe(`Imported ${rows} rows and 0 media files.\n`);
  });

  it("imports an export of format 2 (version 1), saying which records it left out", async () => {
    const at = "2026-03-01T10:00:00.000Z";
    const stray = `tokens:${"a".repeat(64)}`;
    const records = {
      "accounts:acct_old": { account_id: "acct_old", environment: "test", currency: "EUR", page_quota: 3, created_at: at },
      [stray]: { account_id: "gone", scopes: ["products:read"], expires_at: null, created_at: at },
    };
    writeFileSync(join(h.home, "old.json"), JSON.stringify({ format: "lp-export", version: 1, exported_at: at, records, media: {} }));
    const imported = await h.lp(["admin", "import", "old.json"]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toBe(`Imported 1 rows and 0 media files.\nLeft out 1 records of the document: ${stray} (names account gone, which is not there)\n`);
  });

  it("exits 4 with a wrong admin key", async () => {
    expect((await h.lp(["admin", "reset", "--yes"], { env: { LP_ADMIN_KEY: "nope" } })).code).toBe(4);
  });
});
