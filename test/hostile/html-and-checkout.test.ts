import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deploySite } from "./deployed-site.js";
import { createProduct, expectHealthy, productsSnapshot, startTarget, type Target } from "./hostile-client.js";

const post = (target: Target, path: string, form = "") =>
  fetch(`${target.url}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form });

/** What every HTML answer must carry, whoever frames it. */
function expectHtmlHeaders(res: Response, frames: "none" | "self") {
  expect(res.headers.get("content-type")).toContain("text/html");
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain(`frame-ancestors '${frames}'`);
  expect(csp).toContain("default-src 'none'");
  expect(res.headers.get("x-frame-options")).toBe(frames === "none" ? "DENY" : "SAMEORIGIN");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
}

describe("HTML answers and checkout posts of lp serve --checkout-rate-limit 3/min", () => {
  let target: Target;
  let site: { pageId: string; sitePath: string; builderPath: string };
  let before: unknown[];
  beforeAll(async () => {
    target = await startTarget(["--checkout-rate-limit", "3/min"]);
    await createProduct(target, "Kept");
    site = await deploySite(target);
    before = await productsSnapshot(target);
  }, 60_000);
  afterAll(async () => {
    expect(await productsSnapshot(target)).toEqual(before);
    expect(await target.served.stop()).toBe(0);
  });

  it("sends the CSP with frame-ancestors, X-Frame-Options, nosniff and Referrer-Policy on every HTML answer", async () => {
    const page = await fetch(`${target.url}${site.sitePath}`);
    expect(page.status).toBe(200);
    expectHtmlHeaders(page, "none");
    expect(await page.text()).toContain('http-equiv="Content-Security-Policy"'); // the meta policy stays
    const missing = await fetch(`${target.url}/sites/${target.account}/no-such-site/`);
    expect(missing.status).toBe(404);
    expectHtmlHeaders(missing, "none");
    const builder = await fetch(`${target.url}${site.builderPath}`);
    expect(builder.status).toBe(200);
    expectHtmlHeaders(builder, "self");
    // The page id alone (every deployed site prints it) opens no preview.
    const unsigned = await fetch(`${target.url}/builder/${site.pageId}`);
    expect(unsigned.status).toBe(404);
    expect(await unsigned.text()).not.toContain("Hostile Mug");
    expectHtmlHeaders(unsigned, "self");
    const noBuilder = await fetch(`${target.url}/builder/00000000-0000-4000-8000-000000000000`);
    expect(noBuilder.status).toBe(404);
    expectHtmlHeaders(noBuilder, "self");
  });

  it("sends them on the checkout's 400 page, then limits posts per address with 429 and Retry-After", async () => {
    const checkout = `${site.sitePath}checkout`;
    for (let i = 0; i < 3; i++) {
      const invalid = await post(target, checkout);
      expect(invalid.status).toBe(400);
      expectHtmlHeaders(invalid, "none");
      await invalid.text();
    }
    const limited = await post(target, checkout);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = await limited.json();
    expect(body.error).toMatchObject({ code: "rate_limited", details: { limit: 3, window_seconds: 60 } });
    // Only checkout posts are limited.
    expect((await fetch(`${target.url}${site.sitePath}`)).status).toBe(200);
    await expectHealthy(target);
  });
});

describe("lp serve --public", () => {
  it("limits checkout posts by default", { timeout: 60_000 }, async () => {
    const target = await startTarget(["--public"]);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) {
        const res = await post(target, `/sites/${target.account}/nowhere/checkout`);
        statuses.push(res.status);
        await res.arrayBuffer();
      }
      expect(statuses.slice(0, 30).every((s) => s === 404)).toBe(true);
      expect(statuses[30]).toBe(429);
    } finally {
      expect(await target.served.stop()).toBe(0);
    }
  });
});
