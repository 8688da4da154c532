import { createTestApp, type TestApp } from "../../../server/src/testing/test-app.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiError, ClientConfigError, TransportError, createClient, type Client } from "./index.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

describe("client against the app (app.request)", () => {
  let t: TestApp;
  let client: Client;
  beforeEach(async () => {
    t = await createTestApp();
    const fetch = t.fetch;
    client = createClient({ baseUrl: "http://lp.test", token: t.creds.token, accountId: t.creds.account_id, adminKey: t.adminKey, fetch });
  });
  afterEach(() => t.close());

  it("creates, lists, updates and deletes products", async () => {
    const created = await client.products.create({ title: "Lamp", price: 39.5, product_type: "physical", images: ["https://cdn.example/a.png"] });
    expect(created).toMatchObject({ title: "Lamp", price: 39.5, images: [{ url: "https://cdn.example/a.png", display_order: 0 }] });
    const page = await client.products.list({ q: "lam", per_page: 1 });
    expect(page.data.map((p) => p.id)).toEqual([created.id]);
    expect(page.pagination).toEqual({ next_cursor: null, has_more: false });
    const updated = await client.products.update(created.id, { description: "Warm", remove_image_ids: [created.images[0].id] });
    expect(updated).toMatchObject({ description: "Warm", images: [] });
    await client.products.delete(created.id);
    const error = await client.products.get(created.id).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: "not_found", details: { resource: "product" } });
    expect(error.requestId).toMatch(/^req_/);
  });

  it("uploads files as multipart, mixed with URLs", async () => {
    const file = new File([PNG], "dot.png", { type: "image/png" });
    const created = await client.products.create({ title: "Poster", price: 12, product_type: "physical", description: null, images: [file, "https://cdn.example/b.jpg"] });
    expect(created.images.map((i) => i.media_type).sort()).toEqual(["image/jpeg", "image/png"]);
    expect(created.description).toBeNull();
    const updated = await client.products.update(created.id, { price: 15, images: [new File([PNG], "two.png")], reorder_images: [{ id: created.images[0].id, display_order: 9 }] });
    expect(updated.price).toBe(15);
    expect(updated.images).toHaveLength(3);
    const ids = updated.images.map((i) => i.id);
    expect(ids.indexOf(created.images[0].id)).toBeGreaterThan(ids.indexOf(created.images[1].id));
  });

  it("follows cursors with paginate and collect", async () => {
    for (const title of ["a", "b", "c", "d", "e"]) await client.products.create({ title, price: 1, product_type: "service" });
    const sizes: number[] = [];
    for await (const page of client.paginate((q) => client.products.list(q), { per_page: 2, sort: "title" as const })) sizes.push(page.data.length);
    expect(sizes).toEqual([2, 2, 1]);
    const firstThree = await client.collect((q) => client.products.list(q), { per_page: 2, sort: "title" as const }, 3);
    expect(firstThree.items.map((p) => p.title)).toEqual(["a", "b", "c"]);
    expect(firstThree.hasMore).toBe(true);
    const all = await client.collect((q) => client.products.list(q), { per_page: 2 });
    expect(all).toMatchObject({ hasMore: false });
    expect(all.items).toHaveLength(5);
  });

  it("turns validation and authentication failures into ApiError", async () => {
    const invalid = await client.products.create({ title: "", price: -1, product_type: "physical" }).catch((e) => e);
    expect(invalid).toMatchObject({ status: 400, code: "validation_error" });
    expect((invalid.details.issues as { path: string }[]).map((i) => i.path).sort()).toEqual(["price", "title"]);
    const other = createClient({ baseUrl: "http://lp.test", token: "nope", accountId: t.creds.account_id, fetch: t.fetch });
    const refused = await other.products.list().catch((e) => e);
    expect(refused).toMatchObject({ status: 401, code: "unauthenticated" });
    // The answer's headers stay on the error: what to do next is often there.
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(refused.headers.get("x-request-id")).toBe(refused.requestId);
  });

  it("refuses to send without the credentials a plane needs", async () => {
    const bare = createClient({ baseUrl: "http://lp.test", fetch: () => Promise.reject(new Error("must not be called")) });
    await expect(bare.products.list()).rejects.toBeInstanceOf(ClientConfigError);
    await expect(bare.webhooks.list()).rejects.toMatchObject({ missing: "appId" });
    await expect(bare.admin.reset()).rejects.toMatchObject({ missing: "adminKey" });
  });

  it("makes raw requests with the credentials of the path's plane", async () => {
    const body = await client.request<{ data: unknown[] }>("GET", `/v1/accounts/${t.creds.account_id}/products`, { query: { per_page: 5 } });
    expect(body.data).toEqual([]);
    const raw = await client.requestRaw("GET", "/healthz");
    expect(raw.status).toBe(200);
    expect(raw.headers.get("x-request-id")).toMatch(/^req_/);
    await expect(client.request("GET", "/v1/nowhere")).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("drives the admin API: accounts, tokens, apps, export, import, reset", async () => {
    const account = await client.admin.createAccount({ account_id: "acct_two", currency: "EUR" });
    expect(account).toMatchObject({ account_id: "acct_two", currency: "EUR", page_quota: 100 });
    const token = await client.admin.createToken({ account_id: "acct_two", scopes: ["products:read"] });
    expect(token.token).toBeTruthy();
    const app = await client.admin.createApp({ name: "Partner", account_ids: ["acct_two"] });
    expect(app.client_secret).toBeTruthy();
    const reader = createClient({ baseUrl: "http://lp.test", token: token.token, accountId: "acct_two", fetch: t.fetch });
    await expect(reader.products.create({ title: "x", price: 1, product_type: "service" })).rejects.toMatchObject({ status: 403, code: "insufficient_scope" });
    await client.products.create({ title: "Kept", price: 1, product_type: "service" });
    const doc = await client.admin.export();
    expect(doc.format).toBe("lp-export");
    expect(await client.admin.reset()).toEqual({ reset: true });
    const emptied = await client.admin.export();
    expect(emptied.tables.products).toEqual([]);
    const counts = await client.admin.import(doc);
    expect(counts.records).toBeGreaterThan(0);
    expect((await client.products.list()).data.map((p) => p.title)).toEqual(["Kept"]);
  });
});

describe("transport failures", () => {
  it("wraps an unreachable server in TransportError", async () => {
    const client = createClient({ baseUrl: "http://127.0.0.1:9", token: "t", accountId: "a", fetch: () => Promise.reject(new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED") })) });
    const error = await client.products.list().catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("gives non-envelope error bodies an http_<status> code", async () => {
    const fetch = async () => new Response("<html>bad gateway</html>", { status: 502, headers: { "content-type": "text/html", "x-request-id": "req_x" } });
    const client = createClient({ baseUrl: "http://x", token: "t", accountId: "a", fetch });
    await expect(client.products.list()).rejects.toMatchObject({ status: 502, code: "http_502", requestId: "req_x" });
  });

  it("never retries a failed GET", async () => {
    let calls = 0;
    const fetch = async () => {
      calls++;
      return new Response(JSON.stringify({ error: { code: "internal_error", message: "boom", request_id: "req_1" } }), { status: 503 });
    };
    const client = createClient({ baseUrl: "http://x", token: "t", accountId: "a", fetch });
    await expect(client.jobs.get("j")).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(1);
  });
});
