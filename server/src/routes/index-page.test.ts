import { describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { createTestApp } from "../testing/test-app.js";

describe("GET /", () => {
  it("answers a browser with a small HTML index under a strict CSP", async () => {
    const t = await createTestApp();
    const res = await t.app.request("/", { headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const body = await res.text();
    expect(body).toContain("<code>http://lp.test/v1</code>");
    expect(body).toContain('<a href="http://lp.test/v1/openapi.json">');
    expect(body).toContain('<a href="http://lp.test/_dashboard">');
    expect(body).toContain("docs/api.md");
  });

  it("answers JSON to a client that asks for it, and HEAD like GET", async () => {
    const t = await createTestApp();
    const res = await t.app.request("/", { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ api_base: "http://lp.test/v1", openapi_url: "http://lp.test/v1/openapi.json", dashboard_url: "http://lp.test/_dashboard" });
    const head = await t.app.request("/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect((await t.app.request("/", { method: "POST" })).status).toBe(405);
  });

  it("says the dashboard and the admin API are off with --no-admin", async () => {
    const t = await createTestApp();
    const { app } = createApp({ core: t.core, settings: { simulate: true, adminKey: null, publicUrl: () => "http://lp.test" }, log: null });
    const json = await (await app.request("/", { headers: { accept: "application/json" } })).json();
    expect(json).toMatchObject({ dashboard_url: null, admin_api: null });
    const html = await (await app.request("/", { headers: { accept: "text/html" } })).text();
    expect(html).not.toContain("/_dashboard");
    expect(html).toContain("off (<code>--no-admin</code>)");
  });
});
