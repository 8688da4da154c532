import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { createTestApp, type TestApp } from "../testing/test-app.js";
import { isLoopbackAddress } from "./guard.js";
import { createDashboardHub, type DashboardHub } from "./hub.js";

const HOST = "127.0.0.1:4010";

/** The dashboard's access rules over `app.request()`: login, cookie, CSRF, loopback, the admin key. */
describe.each(["memory", "sqlite"] as const)("dashboard access (%s)", (storage) => {
  let t: TestApp;
  let hub: DashboardHub;
  let app: ReturnType<typeof createApp>["app"];

  beforeEach(async () => {
    t = await createTestApp({ storage });
    hub = createDashboardHub();
    app = createApp({ core: t.core, settings: { simulate: true, adminKey: t.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub }).app;
  });
  afterEach(() => t.close());

  const get = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers: { host: HOST, ...headers } });
  async function login(): Promise<{ cookie: string; csrf: string }> {
    const res = await get(`/_dashboard/login?token=${hub.access.issueLogin()}`);
    const cookie = res.headers.get("set-cookie")!.split(";")[0];
    const page = await (await get("/_dashboard/", { cookie })).text();
    return { cookie, csrf: /name="lp-csrf" content="([^"]+)"/.exec(page)![1] };
  }
  const relay = (session: { cookie: string; csrf?: string }, body: unknown, headers: Record<string, string> = {}) =>
    app.request("/_dashboard/api/call", {
      method: "POST",
      headers: { host: HOST, cookie: session.cookie, "content-type": "application/json", ...(session.csrf ? { "x-csrf-token": session.csrf } : {}), ...headers },
      body: JSON.stringify(body),
    });

  it("trades a login token once for an HttpOnly, SameSite=Strict session cookie scoped to /_dashboard", async () => {
    const token = hub.access.issueLogin();
    const first = await get(`/_dashboard/login?token=${token}`);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/_dashboard/");
    expect(first.headers.get("set-cookie")).toMatch(/^lp_dashboard=[\w-]{40,}; HttpOnly; SameSite=Strict; Path=\/_dashboard$/);
    expect((await get(`/_dashboard/login?token=${token}`)).status).toBe(401);
    expect((await get("/_dashboard/login?token=made-up")).status).toBe(401);
  });

  it("serves the page only to a session, with a CSP that forbids framing", async () => {
    const anonymous = await get("/_dashboard/");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const { cookie } = await login();
    const page = await get("/_dashboard/", { cookie });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    const asset = /src="\/_dashboard\/assets\/([^"]+)"/.exec(await page.text())![1];
    const js = await get(`/_dashboard/assets/${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await get("/_dashboard/assets/..%2Fmanifest.json")).status).toBe(404);
  });

  it("refuses changes without the session's CSRF token, or from another origin", async () => {
    const session = await login();
    const create = { method: "POST", path: `/v1/accounts/${t.creds.account_id}/products`, body: { title: "Kettle", price: 30, product_type: "physical" } };
    expect((await relay({ cookie: session.cookie }, create)).status).toBe(403);
    expect((await relay({ cookie: session.cookie, csrf: "wrong" }, create)).status).toBe(403);
    expect((await relay(session, create, { origin: "http://evil.example" })).status).toBe(403);
    expect((await relay({ cookie: "lp_dashboard=forged", csrf: session.csrf }, create)).status).toBe(401);
    const made = await relay(session, create, { origin: `http://${HOST}` });
    expect(made.status).toBe(201);
    const listed = await t.call("GET", "products");
    expect(listed.json.data.map((p: { title: string }) => p.title)).toContain("Kettle");
  });

  it("relays only API paths, and developer-plane calls as the chosen application", async () => {
    const session = await login();
    expect((await relay(session, { method: "GET", path: "/_dashboard/api/state" })).status).toBe(400);
    expect((await relay(session, { method: "GET", path: "/v1/../_admin/export" })).status).toBe(400);
    expect((await relay(session, { method: "GET", path: "/v1/%2e%2e/healthz" })).status).toBe(400);
    const exported = await relay(session, { method: "GET", path: "/_admin/export" });
    expect(exported.status).toBe(200);
    expect((await exported.json()).format).toBe("lp-export");
    const noApp = await relay(session, { method: "GET", path: "/v1/developer/webhook-endpoints" });
    expect(noApp.status).toBe(401);
    const asApp = await relay(session, { method: "GET", path: "/v1/developer/webhook-endpoints", app_id: t.creds.application_id });
    expect(asApp.status).toBe(200);
  });

  it("answers on loopback Host names only (no DNS rebinding)", async () => {
    const { cookie } = await login();
    expect((await get("/_dashboard/", { cookie, host: "attacker.example:4010" })).status).toBe(403);
    expect((await get("/_dashboard/", { cookie, host: "localhost:4010" })).status).toBe(200);
  });

  it("counts only loopback peers as local", () => {
    expect(["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"].every(isLoopbackAddress)).toBe(true);
    expect(["10.0.0.1", "192.168.1.2", "::ffff:10.0.0.1", "fe80::1", "128.0.0.1"].some(isLoopbackAddress)).toBe(false);
  });

  it("mints login URLs for the admin key sent in a header, never in the URL", async () => {
    const mint = (auth?: string) => app.request("/_dashboard/login-tokens", { method: "POST", headers: { host: HOST, ...(auth ? { authorization: auth } : {}) } });
    expect((await mint()).status).toBe(401);
    expect((await mint("Bearer wrong")).status).toBe(401);
    const res = await mint(`Bearer ${t.adminKey}`);
    expect(res.status).toBe(201);
    const { url } = (await res.json()).data;
    expect(url).toMatch(/^\/_dashboard\/login\?token=[\w-]+$/);
    expect(url).not.toContain(t.adminKey);
    expect((await get(url)).status).toBe(303);
  });

  it("logs API requests with secrets redacted, filterable, and opens one", async () => {
    const session = await login();
    const api = (method: string, path: string, body?: unknown) =>
      app.request(`${t.account}/${path}`, {
        method,
        headers: { host: HOST, authorization: `Bearer ${t.creds.token}`, ...(body ? { "content-type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect((await api("POST", "products", { title: "Lamp", price: 10, product_type: "physical", description: `token ${t.creds.token}` })).status).toBe(201);
    expect((await api("GET", "products/not-a-uuid")).status).toBe(404);
    const apps = await app.request("/_admin/apps", {
      method: "POST",
      headers: { host: HOST, authorization: `Bearer ${t.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Partner", account_ids: [t.creds.account_id] }),
    });
    const secret = (await apps.json()).data.client_secret as string;
    const list = async (q: string) => (await (await get(`/_dashboard/api/requests${q}`, { cookie: session.cookie })).json()).data;
    const all = await list("");
    expect(all.map((r: { path: string }) => r.path)).toEqual(expect.arrayContaining(["/_admin/apps"]));
    expect((await list("?status=4xx")).every((r: { status: number }) => r.status >= 400 && r.status < 500)).toBe(true);
    expect((await list("?plane=admin")).map((r: { path: string }) => r.path)).toEqual(["/_admin/apps"]);
    const everything = JSON.stringify(await Promise.all(all.map(async (r: { id: string }) => (await get(`/_dashboard/api/requests/${r.id}`, { cookie: session.cookie })).json())));
    expect(everything).not.toContain(t.creds.token);
    expect(everything).not.toContain(t.adminKey);
    expect(everything).not.toContain(secret);
    expect(everything).toContain("[redacted]");
    expect(everything).toContain("Lamp");
  });

  it("is not served without an admin key (--no-admin)", async () => {
    const off = createApp({ core: t.core, settings: { simulate: true, adminKey: null, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub }).app;
    const res = await off.request(`/_dashboard/login?token=${hub.access.issueLogin()}`, { headers: { host: HOST } });
    expect(res.status).toBe(404);
  });
});
