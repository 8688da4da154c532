import { createCore, createManualClock, createStores, ensureDevCredentials } from "@lp/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import { createApp } from "./app.js";

if (!redisAvailable) console.warn(redisSkipReason("the two-core races on Redis"));

const ADMIN_KEY = "lpadm_test_key";
const PUBLIC_URL = "http://lp.test";

/**
 * One lp "process": its own Stores (connections), core and app on the shared Redis. Background steps wait
 * on `release()`, as in createTestApp.
 */
async function openNode(url: string, prefix: string) {
  const stores = createStores("redis", { url, prefix });
  const clock = createManualClock("2026-03-01T10:00:00.000Z");
  const waiting: (() => void)[] = [];
  let closing = false;
  const sleep = () => (closing ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve)));
  const core = await createCore({ stores, clock, sleep, redis: { url, prefix }, publicUrl: () => PUBLIC_URL });
  const creds = await ensureDevCredentials(core.database, clock, core.ids);
  const { app } = createApp({ core, settings: { simulate: true, adminKey: ADMIN_KEY, publicUrl: () => PUBLIC_URL }, log: null });
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return {
    core,
    creds,
    release,
    async call(method: string, path: string, init: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${init.token ?? creds.token}`, ...init.headers };
      if (init.body !== undefined) headers["content-type"] = "application/json";
      const target = path.startsWith("/") ? path : `/v1/accounts/${creds.account_id}/${path}`;
      const res = await app.request(target, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
    },
    /** Lets paused steps go on until this node's background work is done (never sleeps). */
    async settle() {
      core.delays.deploymentStepMs = 0;
      core.delays.generationStepMs = 0;
      let idle = false;
      const done = core.onIdle().then(() => (idle = true));
      while (!idle) {
        release();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await done;
    },
    async close() {
      closing = true;
      release();
      await core.close();
      await stores.dispose();
    },
  };
}
type Node = Awaited<ReturnType<typeof openNode>>;

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

describe.skipIf(!redisAvailable)("two cores on one Redis", () => {
  let server: RedisServer;
  let nodes: Node[];
  let run = 0;
  beforeAll(async () => {
    server = await startRedisServer({ appendfsync: "everysec" });
  });
  beforeEach(async () => {
    // A fresh prefix per test: the same Redis, separate data.
    const prefix = `t${++run}:`;
    nodes = [];
    for (let i = 0; i < 2; i++) nodes.push(await openNode(server.url, prefix));
  });
  afterEach(async () => {
    await Promise.all(nodes.map((n) => n.settle()));
    await Promise.all(nodes.map((n) => n.close()));
  });
  afterAll(async () => {
    await server?.dispose();
  });
  /** Sends `n` requests at once, alternating between the two nodes. */
  const spread = <T>(n: number, send: (node: Node, i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => send(nodes[i % 2]!, i)));

  it("shares the dev credentials, so either node serves the same account", () => {
    expect(nodes[0]!.creds).toEqual(nodes[1]!.creds);
  });

  it("100 concurrent deployment starts of one page over both: exactly one 202 (three pages, one race each)", async () => {
    const [a, b] = nodes as [Node, Node];
    const pageIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const creator = i % 2 ? b : a;
      const created = await creator.call("POST", "pages", { body: { product: { title: `Deploy race ${i}`, description: "Raced.", price: 3, product_type: "service" } } });
      await creator.settle();
      pageIds.push((await (i % 2 ? a : b).call("GET", created.json.data.poll_url)).json.data.page_id);
    }
    for (const n of nodes) n.core.delays.deploymentStepMs = 1000;
    // The three races run at once, each spread over both nodes.
    const races = await Promise.all(pageIds.map((pageId) => spread(100, (n) => n.call("POST", `pages/${pageId}/deployments`))));
    for (const results of races) {
      const statuses = results.map((r) => r.status);
      expect(count(statuses, 202)).toBe(1);
      expect(count(statuses, 409)).toBe(99);
      const winner = results.find((r) => r.status === 202)!.json.data;
      for (const r of results.filter((r) => r.status === 409)) expect(r.json.error.details.active_deployment_id).toBe(winner.deployment_id);
    }
  });

  it("100 concurrent requests with one Idempotency-Key over both execute once", async () => {
    const body = { title: "Once", price: 9, product_type: "service" };
    const results = await spread(100, (n) => n.call("POST", "products", { body, headers: { "idempotency-key": "cluster-key" } }));
    const executed = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    const replayed = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === "true");
    expect(executed).toHaveLength(1);
    expect(replayed.length + count(results.map((r) => r.status), 409)).toBe(99);
    for (const r of replayed) expect(r.text).toBe(executed[0]!.text);
    for (const n of nodes) {
      const list = await n.call("GET", "products?per_page=100");
      expect(list.json.data.map((p: { id: string }) => p.id)).toEqual([executed[0]!.json.data.id]);
    }
  });

  it.each([
    ["while their jobs wait", 1000],
    ["while their jobs complete", 0],
  ])("30 concurrent page creations over both on a quota of 5 give five, %s", async (_, stepMs) => {
    const [a] = nodes as [Node, Node];
    expect((await a.call("POST", "/_admin/accounts", { token: ADMIN_KEY, body: { account_id: "acct_quota", page_quota: 5 } })).status).toBe(201);
    const token = (await a.call("POST", "/_admin/tokens", { token: ADMIN_KEY, body: { account_id: "acct_quota", scopes: ["pages:write", "pages:read", "products:write"] } })).json.data.token;
    // Paused jobs count as processing; running ones turn into pages during the race, in one batch each.
    for (const n of nodes) n.core.delays.generationStepMs = stepMs;
    const body = { product: { title: "Quota", description: "Counted.", price: 1, product_type: "service" } };
    const results = await spread(30, (n) => n.call("POST", "/v1/accounts/acct_quota/pages", { token, body }));
    expect(count(results.map((r) => r.status), 202)).toBe(5);
    for (const r of results.filter((r) => r.status !== 202)) expect(r.json.error.code).toBe("quota_exceeded");
    await Promise.all(nodes.map((n) => n.settle()));
    for (const n of nodes) {
      const pages = await n.call("GET", "/v1/accounts/acct_quota/pages?per_page=100", { token });
      expect(pages.json.data).toHaveLength(5);
      // Five pages, five distinct slugs, though their products share one title.
      expect(new Set(pages.json.data.map((p: { slug: string }) => p.slug)).size).toBe(5);
    }
  });

  it("a product created or changed on one node is in the next list the other serves", async () => {
    const [a, b] = nodes as [Node, Node];
    expect((await b.call("GET", "products")).json.data).toEqual([]);
    for (let i = 0; i < 5; i++) {
      const writer = i % 2 ? b : a;
      const reader = i % 2 ? a : b;
      const made = await writer.call("POST", "products", { body: { title: `Seen ${i}`, price: 2, product_type: "physical" } });
      expect(made.status).toBe(201);
      const listed = await reader.call("GET", "products?per_page=100");
      expect(listed.json.data.map((p: { id: string }) => p.id)).toContain(made.json.data.id);
      await writer.call("PATCH", `products/${made.json.data.id}`, { body: { title: `Renamed ${i}` } });
      const found = await reader.call("GET", `products?q=renamed%20${i}`);
      expect(found.json.data.map((p: { id: string }) => p.id)).toEqual([made.json.data.id]);
      expect((await writer.call("DELETE", `products/${made.json.data.id}`)).status).toBe(204);
      const after = await reader.call("GET", "products?per_page=100");
      expect(after.json.data.map((p: { id: string }) => p.id)).not.toContain(made.json.data.id);
    }
  });

  it("a token removed by a reset on one node stops working on the other once it reads the feed", async () => {
    const [a, b] = nodes as [Node, Node];
    const token = (await a.call("POST", "/_admin/tokens", { token: ADMIN_KEY, body: { account_id: a.creds.account_id, scopes: ["products:read"] } })).json.data.token;
    // b authenticates it once: from now on b answers it from its token cache.
    expect((await b.core.accounts.authenticateToken(token)).account_id).toBe(a.creds.account_id);
    expect((await a.call("POST", "/_admin/reset", { token: ADMIN_KEY })).status).toBe(200);
    // b's next index use reads the feed (so does its once-a-second poll); the removal empties its cache.
    await b.core.products.list(a.creds.account_id, { per_page: 20, sort: "-created_at" });
    await expect(b.core.accounts.authenticateToken(token)).rejects.toMatchObject({ code: "unauthenticated" });
  });
});
