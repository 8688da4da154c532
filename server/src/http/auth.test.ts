import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createTestApp, testStorages, type TestApp } from "../testing/test-app.js";

for (const storage of testStorages()) {
  describe(`authentication and authorisation (${storage})`, () => {
    let t: TestApp;
    beforeEach(async () => {
      t = await createTestApp({ storage });
    });
    afterEach(async () => {
      await t.close();
    });

    const product = { title: "Lamp", price: 10, product_type: "physical" };

    it("answers 401 with WWW-Authenticate for missing, malformed and unknown tokens", async () => {
      const cases: Record<string, string>[] = [
        {},
        { authorization: "Basic dXNlcjpwYXNz" },
        { authorization: "Bearer" },
        { authorization: "Bearer a b" },
        { authorization: "Token lp_abcdefghijklmnopqrstuvwx" },
        { authorization: "Bearer not-a-token" },
        { authorization: "Bearer lp_abcdefghijklmnopqrstuvwxyz0123456789" },
        { authorization: `Bearer ${t.creds.token}x` },
      ];
      for (const headers of cases) {
        for (const [method, body] of [["GET", undefined], ["POST", product]] as const) {
          const res = await t.call(method, "products", { token: null, headers, body });
          expectError(res, 401, "unauthenticated");
          expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
        }
      }
      expect((await t.call("GET", "products")).json.data).toEqual([]);
    });

    it("accepts a token until it expires on the clock, then answers 401", async () => {
      const issued = await t.admin("POST", "/_admin/tokens", { account_id: t.creds.account_id, scopes: ["products:read"], expires_in: 60 });
      expect(issued.status).toBe(201);
      expect(issued.json.data.expires_at).toBe(new Date(t.clock.now().getTime() + 60_000).toISOString());
      const token = issued.json.data.token;
      expect((await t.call("GET", "products", { token })).status).toBe(200);
      t.clock.advance(59_999);
      expect((await t.call("GET", "products", { token })).status).toBe(200);
      t.clock.advance(1);
      const res = await t.call("GET", "products", { token });
      expect(expectError(res, 401, "unauthenticated").message).toMatch(/expired/);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      // The dev token never expires.
      t.clock.advance(10 * 365 * 86_400_000);
      expect((await t.call("GET", "products")).status).toBe(200);
    });

    it("answers 403 insufficient_scope naming the scope, and writes nothing", async () => {
      const read = (await t.admin("POST", "/_admin/tokens", { account_id: t.creds.account_id, scopes: ["products:read"] })).json.data.token;
      const write = (await t.admin("POST", "/_admin/tokens", { account_id: t.creds.account_id, scopes: ["products:write"] })).json.data.token;
      const denied = await t.call("POST", "products", { token: read, body: product });
      expect(expectError(denied, 403, "insufficient_scope").details).toEqual({ required_scope: "products:write" });
      expect((await t.call("GET", "products", { token: read })).json.data).toEqual([]);

      const created = await t.call("POST", "products", { token: write, body: product });
      expect(created.status).toBe(201);
      const id = created.json.data.id;
      expect(expectError(await t.call("GET", "products", { token: write }), 403, "insufficient_scope").details.required_scope).toBe("products:read");
      expect(expectError(await t.call("GET", `products/${id}`, { token: write }), 403, "insufficient_scope").details.required_scope).toBe("products:read");
      expectError(await t.call("PATCH", `products/${id}`, { token: read, body: { title: "x" } }), 403, "insufficient_scope");
      expectError(await t.call("DELETE", `products/${id}`, { token: read }), 403, "insufficient_scope");
      expect((await t.call("GET", `products/${id}`)).json.data.title).toBe("Lamp");
    });

    it("answers 403 account_mismatch across accounts, both ways, and keeps data apart", async () => {
      const other = await t.admin("POST", "/_admin/accounts", { account_id: "acct_other" });
      expect(other.status).toBe(201);
      const token = (await t.admin("POST", "/_admin/tokens", { account_id: "acct_other", scopes: ["products:read", "products:write"] })).json.data.token;
      const mine = (await t.call("POST", "products", { body: product })).json.data;

      expectError(await t.call("GET", `${t.account}/products`, { token }), 403, "account_mismatch");
      expectError(await t.call("GET", `${t.account}/products/${mine.id}`, { token }), 403, "account_mismatch");
      expectError(await t.call("POST", `${t.account}/products`, { token, body: product }), 403, "account_mismatch");
      expectError(await t.call("DELETE", `${t.account}/products/${mine.id}`, { token }), 403, "account_mismatch");
      expectError(await t.call("GET", "/v1/accounts/acct_other/products"), 403, "account_mismatch");
      // An account that does not exist is another account too.
      expectError(await t.call("GET", "/v1/accounts/acct_nobody/products"), 403, "account_mismatch");

      const theirs = await t.call("POST", "/v1/accounts/acct_other/products", { token, body: { ...product, title: "Theirs" } });
      expect(theirs.status).toBe(201);
      // Ids of one account are unknown in the other.
      expectError(await t.call("GET", `/v1/accounts/acct_other/products/${mine.id}`, { token }), 404, "not_found");
      expectError(await t.call("GET", `products/${theirs.json.data.id}`), 404, "not_found");
      expect((await t.call("GET", "products")).json.data.map((p: any) => p.title)).toEqual(["Lamp"]);
      expect((await t.call("GET", "/v1/accounts/acct_other/products", { token })).json.data.map((p: any) => p.title)).toEqual(["Theirs"]);
    });

    it("protects the admin API with the admin key", async () => {
      for (const token of [null, t.creds.token, "lpadm_wrong"]) {
        const res = await t.call("POST", "/_admin/accounts", { token, body: {} });
        expectError(res, 401, "unauthenticated");
        expect(res.headers.get("www-authenticate")).toBeTruthy();
      }
      expectError(await t.call("GET", "/_admin/export", { token: t.creds.token }), 401, "unauthenticated");
    });
  });
}
