import { afterEach, describe, expect, it } from "vitest";
import { defaultTestStorage } from "../testing/test-app.js";
import { createWebhookTestApp, type WebhookTestApp } from "./webhooks-test-kit.js";


describe("/_admin/requests: the request journal (DESIGN §15)", () => {
  let t: WebhookTestApp;
  afterEach(async () => {
    await t?.close();
  });
  const journal = async (query = "") => {
    const res = await t.admin("GET", `/_admin/requests${query}`);
    expect(res.status).toBe(200);
    return res.json.data as Array<Record<string, any>>;
  };

  it("lists the requests answered, newest first, with query, bodies, status and start time", async () => {
    t = await createWebhookTestApp({ manualClock: true });
    const product = await t.product("Lamp");
    await t.admin("POST", "/_admin/clock", { advance: "1h" });
    await t.call("GET", "products?per_page=5&sort=title");
    await t.call("GET", "products/prod_nope");
    const all = await journal();
    expect(all.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      `GET ${t.account}/products/prod_nope 404`,
      `GET ${t.account}/products 200`,
      "POST /_admin/clock 200",
      `POST ${t.account}/products 201`,
    ]);
    const [missing, listed, , created] = all;
    expect(listed.query).toEqual({ per_page: "5", sort: "title" });
    expect(listed.started_at).toBe("2026-03-01T11:00:00.000Z");
    expect(created.started_at).toBe("2026-03-01T10:00:00.000Z");
    expect(JSON.parse(created.request.body)).toMatchObject({ title: "Lamp", price: 10 });
    expect(JSON.parse(created.response.body).data.id).toBe(product.id);
    expect(created).toMatchObject({ plane: "account", account_id: t.creds.account_id, seq: 1 });
    expect(missing.response.headers["x-request-id"]).toBe(missing.id);
    expect(created.duration_ms).toBeGreaterThanOrEqual(0);
    // The journal's own reads are not in it.
    expect((await journal()).map((e) => e.path)).not.toContain("/_admin/requests");
  });

  it("filters by method, path glob, status, start and seq, and bounds the count", async () => {
    t = await createWebhookTestApp({ manualClock: true });
    await t.product("A");
    await t.product("B");
    await t.call("GET", "products");
    await t.call("DELETE", "products/prod_nope");
    await t.admin("POST", "/_admin/clock", { advance: "20m" });
    await t.product("C");
    expect((await journal("?method=post")).map((e) => e.path.split("/").pop())).toEqual(["products", "clock", "products", "products"]);
    expect(await journal(`?path=${encodeURIComponent("/v1/accounts/*/products")}`)).toHaveLength(4);
    expect(await journal(`?path=${encodeURIComponent("*/prod_*")}`)).toHaveLength(1);
    expect((await journal("?status=4xx")).map((e) => e.method)).toEqual(["DELETE"]);
    expect((await journal("?status=201")).length).toBe(3);
    expect((await journal("?since=10m")).map((e) => JSON.parse(e.request.body).title)).toEqual(["C"]);
    expect(await journal("?since=2026-03-01T10:10:00Z")).toHaveLength(1);
    expect((await journal("?limit=2")).map((e) => e.seq)).toEqual([6, 5]);
    expect((await journal("?after=4")).map((e) => e.seq)).toEqual([6, 5]);
    for (const bad of ["?status=6xx", "?status=20", "?limit=0", "?limit=501", "?since=yesterday", "?method=GET%20X", `?path=${"a".repeat(513)}`, "?after=-1"]) {
      expect((await t.admin("GET", `/_admin/requests${bad}`)).status, bad).toBe(400);
    }
    expect((await t.call("GET", "/_admin/requests", { token: t.creds.token })).status).toBe(401);
  });

  it("redacts every token and secret: Authorization, access tokens, client secrets, whsec_ secrets, the admin key", async () => {
    t = await createWebhookTestApp();
    const token = (await t.admin("POST", "/_admin/tokens", { account_id: t.creds.account_id })).json.data.token;
    const app = (await t.admin("POST", "/_admin/apps", { name: "Partner", account_ids: [t.creds.account_id] })).json.data;
    const receiver = await t.receiver();
    const endpoint = await t.endpoint(receiver);
    await t.call("GET", `products?token=${token}`, { token });
    const entries = await journal();
    const text = JSON.stringify(entries);
    for (const secret of [token, t.creds.token, t.adminKey, app.client_secret, t.creds.client_secret, endpoint.secret]) expect(text).not.toContain(secret);
    expect(entries.find((e) => e.path === "/_admin/tokens")!.request.headers.authorization).toBe("[redacted]");
    expect(entries[0].query.token).toBe("[redacted]");
    const created = entries.find((e) => e.method === "POST" && e.path.endsWith("/webhook-endpoints"))!;
    expect(JSON.parse(created.response.body).data.secret).toBe("[redacted]");
  });
});
