import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { createTestApp, type TestApp } from "../testing/test-app.js";
import { createDashboardHub, type DashboardHub } from "./hub.js";

const HOST = "127.0.0.1:4010";

/** The dashboard's own API over `app.request()`: runs with their step times, and the request log's paging, filters and replay. */
describe.each(["memory", "sqlite"] as const)("dashboard API (%s)", (storage) => {
  let t: TestApp;
  let hub: DashboardHub;
  let app: ReturnType<typeof createApp>["app"];
  let session: { cookie: string; csrf: string };

  beforeEach(async () => {
    t = await createTestApp({ storage });
    hub = createDashboardHub();
    app = createApp({ core: t.core, settings: { simulate: true, adminKey: t.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub }).app;
    const res = await app.request(`/_dashboard/login?token=${hub.access.issueLogin()}`, { headers: { host: HOST } });
    const cookie = res.headers.get("set-cookie")!.split(";")[0];
    const page = await (await app.request("/_dashboard/", { headers: { host: HOST, cookie } })).text();
    session = { cookie, csrf: /name="lp-csrf" content="([^"]+)"/.exec(page)![1] };
  });
  afterEach(() => t.close());

  const dash = async (method: string, path: string, body?: unknown) => {
    const res = await app.request(`/_dashboard/api${path}`, {
      method,
      headers: { host: HOST, cookie: session.cookie, "x-csrf-token": session.csrf, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: await res.json() };
  };
  /** A request from outside, as a script with the dev token (or another) would send it. */
  const api = (method: string, path: string, body?: unknown, token = t.creds.token) =>
    app.request(path, { method, headers: { host: HOST, authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });

  it("shows the server's clock in its state: the system one here, a manual one as it is moved", async () => {
    expect((await dash("GET", "/state")).json.data.clock).toEqual({ now: "2026-03-01T10:00:00.000Z", mode: "system" });
    const manual = await createTestApp({ storage, manualClock: true });
    try {
      const hub2 = createDashboardHub();
      const app2 = createApp({ core: manual.core, settings: { simulate: true, adminKey: manual.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub2 }).app;
      const login = await app2.request(`/_dashboard/login?token=${hub2.access.issueLogin()}`, { headers: { host: HOST } });
      const cookie = login.headers.get("set-cookie")!.split(";")[0];
      await manual.admin("POST", "/_admin/clock", { advance: "3h" });
      const state = await (await app2.request("/_dashboard/api/state", { headers: { host: HOST, cookie } })).json();
      expect(state.data.clock).toEqual({ now: "2026-03-01T13:00:00.000Z", mode: "manual" });
    } finally {
      await manual.close();
    }
  });

  it("lists generation jobs with the time each step began, and a failed one with its step and error", async () => {
    const product = await t.core.products.create(t.creds.account_id, { title: "Kettle", price: 30, product_type: "physical" });
    expect((await api("POST", `${t.account}/pages`, { product_id: product.id })).status).toBe(202);
    const failing = await app.request(`${t.account}/pages`, {
      method: "POST",
      headers: { host: HOST, authorization: `Bearer ${t.creds.token}`, "content-type": "application/json", "lp-simulate": "generation_failed" },
      body: JSON.stringify({ product_id: product.id }),
    });
    expect(failing.status).toBe(202);
    await t.core.onIdle();
    const { json } = await dash("GET", `/jobs?account_id=${t.creds.account_id}`);
    const byStatus = Object.fromEntries(json.data.map((j: any) => [j.status, j]));
    expect(Object.keys(byStatus.completed.step_times)).toEqual(["analyzing_product", "writing_copy", "generating_images", "building_page", "done"]);
    expect(byStatus.failed).toMatchObject({ step: "generating_images", page_id: null, simulate: "generation_failed", error: { code: "generation_failed" } });
    expect(Object.keys(byStatus.failed.step_times)).toEqual(["analyzing_product", "writing_copy", "generating_images"]);
    const onePage = await dash("GET", `/jobs?account_id=${t.creds.account_id}&page_id=${byStatus.completed.page_id}`);
    expect(onePage.json.data.map((j: any) => j.job_id)).toEqual([byStatus.completed.job_id]);
    expect((await dash("GET", "/jobs?account_id=../x")).status).toBe(400);
  });

  it("lists a page's deployments with the time each step began", async () => {
    const product = await t.core.products.create(t.creds.account_id, { title: "Lamp", price: 10, product_type: "physical" });
    const job = await t.core.pages.create(t.creds.account_id, { product_id: product.id }, null);
    await t.core.onIdle();
    const pageId = (await t.core.pages.getJob(t.creds.account_id, job.job_id)).page_id!;
    expect((await api("POST", `${t.account}/pages/${pageId}/deployments`, {})).status).toBe(202);
    await t.core.onIdle();
    const { json } = await dash("GET", `/deployments?account_id=${t.creds.account_id}&page_id=${pageId}`);
    expect(json.data).toHaveLength(1);
    expect(json.data[0]).toMatchObject({ status: "succeeded", page_id: pageId });
    expect(Object.keys(json.data[0].step_times)).toEqual(["rendering", "uploading", "activating"]);
    expect(json.data[0]).not.toHaveProperty("account_id");
    expect((await dash("GET", `/deployments?account_id=${t.creds.account_id}&page_id=../../x`)).status).toBe(400);
  });

  it("hides the dashboard's own calls unless asked, pages through older entries, and credits no account to a refused token", async () => {
    for (let i = 0; i < 5; i++) expect((await api("GET", `${t.account}/products`)).status).toBe(200);
    expect((await api("GET", `${t.account}/products`, undefined, "lp_wrong_token_value")).status).toBe(401);
    expect((await dash("POST", "/call", { method: "GET", path: `${t.account}/products` })).status).toBe(200);
    const first = (await dash("GET", "/requests?limit=4")).json;
    expect(first).toMatchObject({ total: 6, hidden: 1 });
    expect(first.data).toHaveLength(4);
    expect(first.data.every((r: any) => r.source === "api")).toBe(true);
    // The refused call names the account in its path, but its credentials proved nobody.
    expect(first.data[0]).toMatchObject({ status: 401, account_id: null });
    const second = (await dash("GET", `/requests?limit=4&before=${first.next_before}`)).json;
    expect(second.data).toHaveLength(2);
    expect(second.next_before).toBeNull();
    expect(new Set([...first.data, ...second.data].map((r: any) => r.id)).size).toBe(6);
    const all = (await dash("GET", "/requests?source=all")).json;
    expect(all.total).toBe(7);
    expect(all.data[0]).toMatchObject({ source: "dashboard", account_id: t.creds.account_id });
  });

  it("replays a logged request with the caller's own credentials, which never leave the server", async () => {
    expect((await api("POST", `${t.account}/products`, { title: "Mug", price: 12, product_type: "physical" })).status).toBe(201);
    const original = (await dash("GET", "/requests")).json.data[0];
    const replayed = await dash("POST", `/requests/${original.id}/replay`, {});
    expect(replayed.status).toBe(201);
    expect(JSON.stringify(replayed.json)).not.toContain(t.creds.token);
    expect(replayed.json.data.status).toBe(201);
    const listed = await t.call("GET", "products");
    expect(listed.json.data.filter((p: any) => p.title === "Mug")).toHaveLength(2);
    const entry = (await dash("GET", `/requests/${replayed.json.data.request_id}`)).json.data;
    expect(entry).toMatchObject({ method: "POST", source: "replay", account_id: t.creds.account_id, status: 201 });
    expect(JSON.stringify(entry)).not.toContain(t.creds.token);
    // A call the dashboard relayed as an application goes again as that application.
    expect((await dash("POST", "/call", { method: "GET", path: "/v1/developer/webhook-endpoints", app_id: t.creds.application_id })).status).toBe(200);
    const relayed = (await dash("GET", "/requests?source=all")).json.data.find((r: any) => r.source === "dashboard");
    const again = await dash("POST", `/requests/${relayed.id}/replay`, {});
    expect(again.json.data.status).toBe(200);
    expect((await dash("POST", "/requests/req_000000/replay", {})).status).toBe(404);
  });
});
