import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

const inline = { title: "Trail Running Shoes", description: "Light shoes with grip.", price: 89, product_type: "physical" };

describe("pages and generation jobs", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  async function createPage(body: unknown, headers: Record<string, string> = {}) {
    const res = await t.call("POST", "pages", { body, headers });
    expect(res.status).toBe(202);
    await t.core.onIdle();
    const job = await t.call("GET", res.json.data.poll_url);
    return { res, job: job.json.data };
  }

  it("creates a page from an inline product, polls the job, reads, patches, lists and deletes it", async () => {
    const res = await t.call("POST", "pages", { body: { product: inline, options: { language: "fr" }, design: { primary_color: "#ff0000" } } });
    expect(res.status).toBe(202);
    expect(res.headers.get("location")).toBe(res.json.data.poll_url);
    expect(res.json.data.poll_url).toBe(`${t.account}/pages/jobs/${res.json.data.job_id}`);
    const early = await t.call("GET", res.json.data.poll_url);
    expect(early.json.data).toMatchObject({ status: "processing", page_id: null, builder_url: null, completed_at: null, error: null, warnings: [] });

    await t.core.onIdle();
    const job = (await t.call("GET", res.json.data.poll_url)).json.data;
    expect(job).toMatchObject({ status: "completed", step: "done", error: null });
    expect(job.builder_url).toMatch(new RegExp(`^http://lp\\.test/builder/${job.page_id}\\?expires=\\d+&sig=`));
    expect(job.completed_at).not.toBeNull();

    const page = (await t.call("GET", `pages/${job.page_id}`)).json.data;
    expect(page).toMatchObject({ slug: "trail-running-shoes", status: "draft", deployed_url: null });
    expect(page.product).toMatchObject({ title: "Trail Running Shoes", price: 89, currency: "USD", product_type: "physical" });
    expect(page.global_theme.primaryColor).toBe("#ff0000");
    expect(page.seo_config.title).toBe("Trail Running Shoes");

    const patched = await t.call("PATCH", `pages/${page.id}`, { body: { global_theme: { accentColor: "teal", currency: "EUR" }, seo_config: { title: null, noindex: true } } });
    expect(patched.status).toBe(200);
    expect(patched.json.data.global_theme).toMatchObject({ accentColor: "teal", currency: "EUR", primaryColor: "#ff0000" });
    expect(patched.json.data.product.currency).toBe("EUR");
    expect(patched.json.data.seo_config.title).toBeUndefined();
    expect(patched.json.data.seo_config.noindex).toBe(true);

    const bad = await t.call("PATCH", `pages/${page.id}`, { body: { global_theme: { primary: "#fff" } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain("primaryColor");

    const products = (await t.call("GET", "products")).json.data;
    expect(products).toHaveLength(1);
    const listed = await t.call("GET", `pages?q=TRAIL&product_id=${products[0].id}&status=draft`);
    expect(listed.json.data.map((p: any) => p.id)).toEqual([page.id]);
    expect(listed.json.data[0]).not.toHaveProperty("global_theme");
    expect((await t.call("GET", "pages?status=published")).json.data).toEqual([]);

    expect((await t.call("DELETE", `pages/${page.id}`)).status).toBe(204);
    expect((await t.call("GET", `pages/${page.id}`)).status).toBe(404);
  });

  it("keeps a product's checkout fields for its later pages", async () => {
    const product = (await t.call("POST", "products", { body: { title: "Yoga class", price: 20, product_type: "service" } })).json.data;
    const first = await createPage({ product_id: product.id, checkout_fields: [{ field_key: "size", field_type: "select", options: ["S", "M"] }] });
    const second = await createPage({ product_id: product.id });
    const stored = await t.core.pages.readPage("acct_dev", second.job.page_id);
    expect(stored?.checkout_fields.map((f) => f.field_key)).toEqual(["size"]);
    expect(first.job.page_id).not.toBe(second.job.page_id);
    expect(stored?.slug).toBe("yoga-class-en");
  });

  it("enforces exactly one of product and product_id, and 404s a foreign or deleted product", async () => {
    for (const body of [{}, { product: inline, product_id: "6f1c2a4e-8b1d-4c3e-9f2a-1b2c3d4e5f60" }]) {
      const res = await t.call("POST", "pages", { body });
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("validation_error");
    }
    const missing = await t.call("POST", "pages", { body: { product_id: "6f1c2a4e-8b1d-4c3e-9f2a-1b2c3d4e5f60" } });
    expect(missing.json.error).toMatchObject({ code: "not_found", details: { resource: "product" } });
  });

  it("refuses page creation over the quota, counting jobs still processing", async () => {
    await t.admin("POST", "/_admin/accounts", { account_id: "small", page_quota: 1 });
    const token = (await t.admin("POST", "/_admin/tokens", { account_id: "small" })).json.data.token;
    const first = await t.call("POST", "/v1/accounts/small/pages", { body: { product: inline }, token });
    expect(first.status).toBe(202);
    const second = await t.call("POST", "/v1/accounts/small/pages", { body: { product: inline }, token });
    expect(second.status).toBe(403);
    expect(second.json.error).toMatchObject({ code: "quota_exceeded", details: { limit: 1, used: 1 } });
  });

  it("replays an idempotent page creation without starting a second job", async () => {
    const headers = { "idempotency-key": "page-1" };
    const a = await t.call("POST", "pages", { body: { product: inline }, headers });
    const b = await t.call("POST", "pages", { body: { product: inline }, headers });
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.json.data.job_id).toBe(a.json.data.job_id);
    await t.core.onIdle();
    expect((await t.call("GET", "pages")).json.data).toHaveLength(1);
  });

  it("fails a job at a realistic step with Lp-Simulate: generation_failed", async () => {
    const { job } = await createPage({ product: inline }, { "lp-simulate": "generation_failed" });
    expect(job).toMatchObject({ status: "failed", step: "generating_images", page_id: null, error: { code: "generation_failed" } });
  });

  it("falls back to English with a warning for an unsupported language", async () => {
    const { job } = await createPage({ product: inline, options: { language: "xx" } });
    expect(job.status).toBe("completed");
    expect(job.warnings.map((w: any) => w.code)).toContain("language_fallback");
  });

  it("needs the pages scopes", async () => {
    const token = (await t.admin("POST", "/_admin/tokens", { account_id: "acct_dev", scopes: ["pages:read"] })).json.data.token;
    const res = await t.call("POST", "pages", { body: { product: inline }, token });
    expect(res.status).toBe(403);
    expect(res.json.error.details.required_scope).toBe("pages:write");
  });
});

describe("list date bounds", () => {
  it("refuses a date that does not exist", async () => {
    const t = await createTestApp();
    try {
      const res = await t.call("GET", "pages?created_after=2026-02-30");
      expect(res.status).toBe(400);
      expect(res.json.error.details.issues[0].path).toBe("created_after");
      expect((await t.call("GET", "products?created_before=2026-02-28T10:00:00Z")).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
