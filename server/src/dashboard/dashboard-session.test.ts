import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { createTestApp, type TestApp } from "../testing/test-app.js";
import { createDashboardHub, type DashboardHub } from "./hub.js";

const HOST = "127.0.0.1:4010";

/** Reads an event stream's body to its end (the stream must end for this to return). */
async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

/** The dashboard's session as the page sees it: the live stream across a stop, and a lost session told apart. */
describe("dashboard session and live stream", () => {
  let t: TestApp;
  let hub: DashboardHub;
  let app: ReturnType<typeof createApp>["app"];

  beforeEach(async () => {
    t = await createTestApp({ storage: "memory" });
    hub = createDashboardHub();
    app = createApp({ core: t.core, settings: { simulate: true, adminKey: t.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub }).app;
  });
  afterEach(() => t.close());

  const get = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers: { host: HOST, ...headers } });
  async function login(): Promise<string> {
    const res = await get(`/_dashboard/login?token=${hub.access.issueLogin()}`);
    return res.headers.get("set-cookie")!.split(";")[0];
  }

  it("ends open streams with `stopping` when the server stops, closes their connection, and refuses new ones", async () => {
    const cookie = await login();
    const stream = await get("/_dashboard/api/events", { cookie });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    // The socket goes with the stream: a browser cannot reopen a stream on it while the server drains.
    expect(stream.headers.get("connection")).toBe("close");
    const text = readAll(stream.body!);
    hub.close();
    const received = await text;
    expect(received).toMatch(/^event: hello\nretry: \d+\n/);
    expect(received).toContain("event: stopping\n");
    const again = await get("/_dashboard/api/events", { cookie });
    expect(again.status).toBe(503);
    expect(again.headers.get("connection")).toBe("close");
  });

  it("opens one session for a login token two requests race for, and a logout ends it", async () => {
    const minted = await app.request("/_dashboard/login-tokens", { method: "POST", headers: { host: HOST, authorization: `Bearer ${t.adminKey}` } });
    expect(minted.status).toBe(201);
    const url = (await minted.json()).data.url as string;
    const [a, b] = await Promise.all([get(url), get(url)]);
    expect([a.status, b.status].sort()).toEqual([303, 401]);
    const cookie = (a.status === 303 ? a : b).headers.get("set-cookie")!.split(";")[0];
    const page = await get("/_dashboard/", { cookie });
    expect(page.status).toBe(200);
    const csrf = /name="lp-csrf" content="([^"]+)"/.exec(await page.text())![1];
    const logout = await app.request("/_dashboard/api/logout", { method: "POST", headers: { host: HOST, cookie, "x-csrf-token": csrf } });
    expect(logout.status).toBe(204);
    expect((await get("/_dashboard/api/session", { cookie })).status).toBe(401);
    expect((await get(url)).status).toBe(401);
  });

  it("marks the dashboard's own refusal of a missing session, which a relayed API 401 never carries", async () => {
    const cookie = await login();
    expect((await get("/_dashboard/api/session", { cookie })).status).toBe(200);
    const gone = await get("/_dashboard/api/session", { cookie: "lp_dashboard=forgotten" });
    expect(gone.status).toBe(401);
    expect(gone.headers.get("lp-dashboard-session")).toBe("none");
    const csrf = /name="lp-csrf" content="([^"]+)"/.exec(await (await get("/_dashboard/", { cookie })).text())![1];
    const relayed = await app.request("/_dashboard/api/call", {
      method: "POST",
      headers: { host: HOST, cookie, "x-csrf-token": csrf, "content-type": "application/json" },
      body: JSON.stringify({ method: "GET", path: "/v1/developer/webhook-endpoints" }),
    });
    expect(relayed.status).toBe(401);
    expect(relayed.headers.get("lp-dashboard-session")).toBeNull();
  });
});
