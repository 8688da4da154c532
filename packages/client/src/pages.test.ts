import { createTestApp, type TestApp } from "../../../server/src/testing/test-app.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient, type Client, type Job } from "./index.js";

describe("pages and jobs against the app", () => {
  let t: TestApp;
  let client: Client;
  beforeEach(async () => {
    t = await createTestApp();
    client = createClient({ baseUrl: "http://lp.test", token: t.creds.token, accountId: t.creds.account_id, fetch: t.fetch });
  });
  afterEach(() => t.close());

  it("creates a page, waits for its job with progress, then reads, updates and deletes it", async () => {
    const product = await client.products.create({ title: "Garden chair", price: 80, product_type: "physical" });
    const accepted = await client.pages.create({ product_id: product.id, options: { language: "en" }, design: { primary_color: "#336699" } });
    expect(accepted.poll_url).toBe(`/v1/accounts/${t.creds.account_id}/pages/jobs/${accepted.job_id}`);
    const seen: Job[] = [];
    const job = await client.waitForJob(accepted.job_id, { intervalMs: 0, onProgress: (j) => seen.push(j) });
    expect(job).toMatchObject({ status: "completed", step: "done", error: null });
    expect(seen.at(-1)).toEqual(job);
    const page = await client.pages.get(job.page_id!);
    expect(page.product).toMatchObject({ id: product.id, title: "Garden chair", product_type: "physical" });
    expect(page.global_theme.primaryColor).toBe("#336699");
    const updated = await client.pages.update(page.id, { seo_config: { title: "Chairs" } });
    expect(updated.seo_config.title).toBe("Chairs");
    const listed = await client.pages.list({ product_id: product.id });
    expect(listed.data.map((p) => p.id)).toEqual([page.id]);
    await client.pages.delete(page.id);
    await expect(client.pages.get(page.id)).rejects.toMatchObject({ status: 404 });
  });

  it("reports a failed job as a resolved job with its error", async () => {
    const accepted = await client.pages.create(
      { product: { title: "Yoga class", description: "One hour", price: 20, product_type: "service" } },
      { headers: { "lp-simulate": "generation_failed" } },
    );
    const job = await client.waitForJob(accepted.job_id, { intervalMs: 0 });
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });

  it("rejects both product and product_id", async () => {
    const error = await client.pages
      .create({ product_id: "x", product: { title: "a", description: "b", price: 1, product_type: "service" } })
      .catch((e) => e);
    expect(error).toMatchObject({ status: 400, code: "validation_error" });
  });
});
