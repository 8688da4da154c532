import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../../core/src/testing/redis-server.js";
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

if (!redisAvailable) console.warn(redisSkipReason("the dashboard's shared sessions"));

/** Two processes' worth of dashboards on one Redis: a login token or session from one is good on the other. */
describe.skipIf(!redisAvailable)("dashboard sessions shared on Redis", () => {
  let redis: RedisServer;
  let t: TestApp;
  const hubs: DashboardHub[] = [];
  const apps: ReturnType<typeof createApp>["app"][] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.dispose();
  });
  beforeEach(async () => {
    t = await createTestApp({ storage: "memory" });
    const prefix = `t${Math.random().toString(36).slice(2)}:`;
    for (let i = 0; i < 2; i++) {
      hubs[i] = createDashboardHub({ redis: { url: redis.url, prefix } });
      apps[i] = createApp({ core: t.core, settings: { simulate: true, adminKey: t.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hubs[i] }).app;
    }
  });
  afterEach(async () => {
    for (const hub of hubs) await hub.dispose();
    await t.close();
  });
  const get = (i: number, path: string, headers: Record<string, string> = {}) => apps[i].request(path, { headers: { host: HOST, ...headers } });

  it("redeems a login URL minted by one process on the other, once, and the session works on both until logout", async () => {
    const minted = await apps[0].request("/_dashboard/login-tokens", { method: "POST", headers: { host: HOST, authorization: `Bearer ${t.adminKey}` } });
    const url = (await minted.json()).data.url as string;
    // Both processes race for the same token: exactly one session comes out.
    const [a, b] = await Promise.all([get(0, url), get(1, url)]);
    expect([a.status, b.status].sort()).toEqual([303, 401]);
    const cookie = (a.status === 303 ? a : b).headers.get("set-cookie")!.split(";")[0];
    const pages = await Promise.all([get(0, "/_dashboard/", { cookie }), get(1, "/_dashboard/", { cookie })]);
    expect(pages.map((p) => p.status)).toEqual([200, 200]);
    const [csrf0, csrf1] = await Promise.all(pages.map(async (p) => /name="lp-csrf" content="([^"]+)"/.exec(await p.text())![1]));
    expect(csrf0).toBe(csrf1);
    const logout = await apps[1].request("/_dashboard/api/logout", { method: "POST", headers: { host: HOST, cookie, "x-csrf-token": csrf1 } });
    expect(logout.status).toBe(204);
    expect((await get(0, "/_dashboard/api/session", { cookie })).status).toBe(401);
  });

  it("stores login tokens and sessions hashed, each with an expiry", async () => {
    const token = await hubs[0].access.mintLogin();
    const res = await get(1, `/_dashboard/login?token=${token}`);
    const cookie = res.headers.get("set-cookie")!.split(";")[0].split("=")[1];
    const keys = await redisKeys(redis.url);
    expect(keys.length).toBeGreaterThan(0);
    for (const [key, ttl] of keys) {
      expect(key).not.toContain(token);
      expect(key).not.toContain(cookie);
      expect(ttl).toBeGreaterThan(0);
    }
  });
});

/** Every dashboard key of a Redis with its time to live in ms (-1 when it has none), through redis-cli. */
async function redisKeys(url: string): Promise<[string, number][]> {
  const port = new URL(url).port;
  const cli = (...args: string[]) => execFileSync("redis-cli", ["-p", port, ...args], { encoding: "utf8" }).trim();
  const keys = cli("--scan", "--pattern", "*dashboard:*").split("\n").filter(Boolean);
  return keys.map((k) => [k, Number(cli("pttl", k))]);
}
