import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

/**
 * Concurrent requests against one resource, through `app.request()`: each case fires its requests at
 * once (Promise.all) and checks that the per-key locks leave exactly one winner, lose nothing, and keep
 * the invariants the API promises (one deployment in flight, one execution per Idempotency-Key, the page
 * quota, display_order 0..n-1). Run on both storage drivers, because their writes interleave differently.
 */
describe.each(["memory", "sqlite"] as const)("races on %s storage", (storage) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp({ storage });
  });
  afterEach(async () => {
    await t.close();
  });

  const product = async (body: Record<string, unknown> = {}) => {
    const res = await t.call("POST", "products", { body: { title: "Race", price: 5, product_type: "physical", ...body } });
    expect(res.status).toBe(201);
    return res.json.data;
  };
  const all = <T>(n: number, fn: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
  const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

  /** Lets every paused background step go on until the queue is empty (never sleeps). */
  async function settle() {
    t.core.delays.deploymentStepMs = 0;
    t.core.delays.generationStepMs = 0;
    while (t.core.queue.pending > 0) {
      t.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await t.core.onIdle();
  }

  it("100 concurrent deployment starts for one page: one 202, 99 deployment_in_progress naming it", async () => {
    const created = await t.call("POST", "pages", { body: { product: { title: "Deploy race", description: "Raced.", price: 3, product_type: "service" } } });
    await t.core.onIdle();
    const pageId = (await t.call("GET", created.json.data.poll_url)).json.data.page_id;
    t.core.delays.deploymentStepMs = 1000;

    const results = await all(100, () => t.call("POST", `pages/${pageId}/deployments`));
    const statuses = results.map((r) => r.status);
    expect(count(statuses, 202)).toBe(1);
    expect(count(statuses, 409)).toBe(99);
    const winner = results.find((r) => r.status === 202)!.json.data;
    for (const loser of results.filter((r) => r.status === 409)) {
      expect(loser.json.error.code).toBe("deployment_in_progress");
      expect(loser.json.error.details.active_deployment_id).toBe(winner.deployment_id);
    }

    await settle();
    const history = await t.call("GET", `pages/${pageId}/deployments?per_page=100`);
    expect(history.json.data.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([[winner.deployment_id, "succeeded"]]);
    // Once it settled, the page is free again.
    expect((await t.call("POST", `pages/${pageId}/deployments`)).status).toBe(202);
    await settle();
  });

  it("100 concurrent POST /products with one Idempotency-Key execute once; the rest replay or get 409", async () => {
    const body = { title: "Once", price: 9, product_type: "service" };
    const headers = { "idempotency-key": "race-key-1" };
    const results = await all(100, () => t.call("POST", "products", { body, headers }));

    const executed = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    const replayed = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === "true");
    const busy = results.filter((r) => r.status === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + busy.length).toBe(99);
    for (const r of replayed) expect(r.text).toBe(executed[0].text);
    for (const r of busy) {
      expect(r.json.error.code).toBe("idempotency_key_in_use");
      expect(r.headers.get("retry-after")).toBe("1");
    }

    const list = await t.call("GET", "products?per_page=100");
    expect(list.json.data.map((p: { id: string }) => p.id)).toEqual([executed[0].json.data.id]);
    // After the race, the key only replays.
    const late = await t.call("POST", "products", { body, headers });
    expect(late.headers.get("idempotent-replayed")).toBe("true");
    expect(late.text).toBe(executed[0].text);
  });

  it("50 concurrent PATCHes each adding one image: every acknowledged image kept, display_order 0..n-1", async () => {
    const { id } = await product();
    const url = (i: number) => `https://img.example/race/${i}.png`;
    const results = await all(50, (i) => t.call("PATCH", `products/${id}`, { body: { images: [url(i)] } }));

    // A product holds at most 20 images: the first 20 to take the lock win, the rest are refused whole.
    const ok = results.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
    expect(ok).toHaveLength(20);
    for (const { r } of results.filter((r) => r.status !== 200).map((r) => ({ r }))) {
      expect(r.status).toBe(400);
      expect(r.json.error.details.issues[0]).toMatchObject({ path: "images", code: "too_many" });
    }
    // Each success saw every earlier success: image counts 1..20, each once.
    expect(ok.map(({ r }) => r.json.data.images.length).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

    const final = (await t.call("GET", `products/${id}`)).json.data;
    expect(new Set(final.images.map((img: { url: string }) => img.url))).toEqual(new Set(ok.map(({ i }) => url(i))));
    expect(final.images.map((img: { display_order: number }) => img.display_order)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("concurrent page creations never exceed the page quota", async () => {
    expect((await t.admin("POST", "/_admin/accounts", { account_id: "acct_quota", page_quota: 5 })).status).toBe(201);
    const token = (await t.admin("POST", "/_admin/tokens", { account_id: "acct_quota", scopes: ["pages:write", "pages:read", "products:write", "products:read"] })).json.data.token;
    const create = () => t.call("POST", "/v1/accounts/acct_quota/pages", { token, body: { product: { title: "Quota", description: "Counted.", price: 1, product_type: "service" } } });
    // Jobs stay processing (and count) while the requests race.
    t.core.delays.generationStepMs = 1000;

    const first = await all(30, create);
    expect(count(first.map((r) => r.status), 202)).toBe(5);
    for (const r of first.filter((r) => r.status !== 202)) {
      expect(r.status).toBe(403);
      expect(r.json.error).toMatchObject({ code: "quota_exceeded", details: { limit: 5 } });
      expect(r.json.error.details.used).toBeLessThanOrEqual(5);
    }
    await settle();
    const pages = await t.call("GET", "/v1/accounts/acct_quota/pages?per_page=100", { token });
    expect(pages.json.data).toHaveLength(5);
    // A refused creation stores nothing: its inline product went with it.
    expect((await t.call("GET", "/v1/accounts/acct_quota/products?per_page=100", { token })).json.data).toHaveLength(5);
    // Full: a second wave gets nothing.
    const second = await all(10, create);
    expect(count(second.map((r) => r.status), 403)).toBe(10);
  });

  it("concurrent reorders and removals keep display_order 0..n-1 and never resurrect an image", async () => {
    const urls = Array.from({ length: 10 }, (_, i) => `https://img.example/order/${i}.png`);
    const created = await product({ images: urls });
    const ids: string[] = created.images.map((img: { id: string }) => img.id);
    const kept = ids.slice(0, 5);
    const doomed = ids.slice(5);
    // Reorders name only images that are never removed, so each one is valid whatever runs first.
    const orders = [[4, 3, 2, 1, 0], [1, 0, 3, 2, 4], [2, 4, 0, 1, 3], [0, 2, 4, 1, 3], [3, 1, 4, 0, 2]];
    const reorder = (perm: number[]) => perm.map((pos, k) => ({ id: kept[k], display_order: pos }));
    const requests = [
      ...orders.map((perm) => () => t.call("PATCH", `products/${created.id}`, { body: { reorder_images: reorder(perm) } })),
      ...doomed.map((imageId) => () => t.call("PATCH", `products/${created.id}`, { body: { remove_image_ids: [imageId] } })),
    ];
    const results = await Promise.all(requests.map((send) => send()));
    for (const r of results) {
      expect(r.status).toBe(200);
      const order = r.json.data.images.map((img: { display_order: number }) => img.display_order);
      expect(order).toEqual(order.map((_: number, i: number) => i));
    }

    const final = (await t.call("GET", `products/${created.id}`)).json.data;
    const finalIds: string[] = final.images.map((img: { id: string }) => img.id);
    expect(new Set(finalIds)).toEqual(new Set(kept));
    expect(final.images.map((img: { display_order: number }) => img.display_order)).toEqual([0, 1, 2, 3, 4]);
    // The order left is the one some reorder asked for (the last one to hold the lock).
    const asked = orders.map((perm) => [...kept].sort((a, b) => perm[kept.indexOf(a)] - perm[kept.indexOf(b)]));
    expect(asked).toContainEqual(finalIds);
    expect(final.preview_image_url).toBe(final.images[0].url);
  });
});
