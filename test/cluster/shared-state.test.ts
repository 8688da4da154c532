import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason } from "../../core/src/testing/postgres-server.js";
import { all, CLUSTER_ADMIN_KEY, count, type ClusterNode } from "./cluster.js";
import { useCluster } from "./use-cluster.js";

if (!postgresAvailable) console.warn(postgresSkipReason("the state the cluster's processes share"));

/** The checkout limit of the cluster below: an hour's window, so no test here runs into its end. */
const LIMIT = 6;

/**
 * Posts a checkout to process `node` from the loopback address `from` (the limit counts per client address).
 * The limit is counted before the site is looked up, so a site that does not exist answers 404 until the
 * address is over it, then 429.
 */
function postCheckout(node: ClusterNode, from: string, account: string): Promise<{ status: number; body: string }> {
  const url = new URL(`${node.url}/sites/${account}/no-such-site/checkout`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress: from, headers: { "content-type": "application/x-www-form-urlencoded" }, timeout: 15_000 },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`checkout post to ${url} timed out`)));
    req.on("error", reject);
    req.end("email=buyer%40example.com");
  });
}

/** A fresh one-time login path (`/_dashboard/login?token=...`), minted by process `node` with the admin key. */
async function mintLogin(node: ClusterNode): Promise<string> {
  const res = await fetch(`${node.url}/_dashboard/login-tokens`, { method: "POST", headers: { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { url: string } }).data.url;
}

/** Opens `path` on process `node`: its status and the session cookie it set (`lp_dashboard=...`), if any. */
async function redeem(node: ClusterNode, path: string): Promise<{ status: number; cookie: string | null }> {
  const res = await fetch(`${node.url}${path}`, { redirect: "manual" });
  await res.body?.cancel();
  return { status: res.status, cookie: res.headers.get("set-cookie")?.split(";")[0] ?? null };
}

/** Whether process `node` takes `cookie` as a session (its dashboard's session check: 200, or 401). */
async function sessionStatus(node: ClusterNode, cookie: string): Promise<number> {
  const res = await fetch(`${node.url}/_dashboard/api/session`, { headers: { cookie } });
  await res.body?.cancel();
  return res.status;
}

/** A change of the dashboard's live stream (stream.ts: `event: change`, `data: {"type", "account_id"}`). */
interface StreamChange {
  type: string;
  account_id: string;
}

/**
 * The live stream of process `node`'s dashboard, read as it comes: the changes so far, and a bounded wait for
 * the next one wanted. Resolves once its `hello` arrived.
 */
async function openStream(node: ClusterNode, cookie: string) {
  const abort = new AbortController();
  const res = await fetch(`${node.url}/_dashboard/api/events`, { headers: { cookie }, signal: abort.signal });
  expect(res.status).toBe(200);
  const changes: StreamChange[] = [];
  const names: string[] = [];
  let changed = () => {};
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const lines = buffer.slice(0, end).split("\n");
        buffer = buffer.slice(end + 2);
        const name = lines.find((l) => l.startsWith("event: "))?.slice(7) ?? "message";
        const data = lines.find((l) => l.startsWith("data: "))?.slice(6) ?? "";
        names.push(name);
        if (name === "change") changes.push(JSON.parse(data) as StreamChange);
        changed();
      }
    }
  })().catch(() => {});
  const until = (what: string, test: () => boolean, ms = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} on process ${node.index}'s stream within ${ms} ms; changes ${JSON.stringify(changes)}`)), ms);
      changed = () => {
        if (!test()) return;
        clearTimeout(timer);
        resolve();
      };
      changed();
    });
  await until("hello", () => names.includes("hello"));
  return {
    changes,
    /** Waits for a change of `type` (the `n`th one of it, 1 by default). */
    untilChange: (type: string, n = 1) => until(`change ${type} #${n}`, () => changes.filter((c) => c.type === type).length >= n),
    async close() {
      abort.abort();
      await reading;
    },
  };
}

/**
 * What each process kept in its own memory before, held together by 2 real `lp serve` processes on one
 * PostgreSQL database: the checkout rate limit counts in the database, a dashboard session is the database's,
 * and each process's changes reach the other's dashboard stream through NOTIFY.
 */
describe.skipIf(!postgresAvailable)("state two processes on one PostgreSQL database share", () => {
  const cluster = useCluster({ processes: 2, flags: ["--checkout-rate-limit", `${LIMIT}/h`] });
  const [a, b] = [0, 1].map((i) => ({ get node() { return cluster.nodes[i]!; } }));

  it(`holds one checkout rate limit for the service: ${LIMIT} posts per address across both processes, then 429 from either`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i++) statuses.push((await postCheckout(i % 2 ? b.node : a.node, "127.0.0.1", cluster.account)).status);
    expect(statuses).toEqual(Array(LIMIT).fill(404));
    for (const node of [a.node, b.node]) {
      const refused = await postCheckout(node, "127.0.0.1", cluster.account);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.body).error).toMatchObject({ code: "rate_limited", details: { limit: LIMIT, window_seconds: 3600 } });
    }
    // Another address has a window of its own, and a burst of it spread over both processes lets exactly the limit through.
    const burst = await all(40, (i) => postCheckout(i % 2 ? b.node : a.node, "127.0.0.2", cluster.account));
    const burstStatuses = burst.map((r) => r.status);
    expect(count(burstStatuses, 404), JSON.stringify(burstStatuses)).toBe(LIMIT);
    expect(count(burstStatuses, 429)).toBe(40 - LIMIT);
  });

  it("opens a session on one process with a token another minted, which each process accepts, and uses the token once", async () => {
    const path = await mintLogin(a.node);
    const opened = await redeem(b.node, path);
    expect(opened.status).toBe(303);
    expect(opened.cookie).toMatch(/^lp_dashboard=.+/);
    expect(await sessionStatus(a.node, opened.cookie!)).toBe(200);
    expect(await sessionStatus(b.node, opened.cookie!)).toBe(200);
    // Used on b, the token is gone for a as well.
    expect((await redeem(a.node, path)).status).toBe(401);
    expect(await sessionStatus(a.node, "lp_dashboard=not-a-session")).toBe(401);
    // Two requests redeeming one token at once, one on each process: one session.
    const raced = await mintLogin(b.node);
    const both = await Promise.all([redeem(a.node, raced), redeem(b.node, raced)]);
    expect(both.map((r) => r.status).sort()).toEqual([303, 401]);
  });

  it("shows a product created on one process on the other's live stream, and each change once on each stream", async () => {
    const opened = await redeem(a.node, await mintLogin(a.node));
    const cookie = opened.cookie!;
    const onA = await openStream(a.node, cookie);
    const onB = await openStream(b.node, cookie);
    try {
      const created = await cluster.on(0, "POST", "products", { body: { title: "Made on A", price: 4, product_type: "service" } });
      expect(created.status).toBe(201);
      await onB.untilChange("product.created");
      expect(onB.changes).toContainEqual({ type: "product.created", account_id: cluster.account });

      // Deleted on b: a hears it through b's notification. Had a heard its own creation back, that echo
      // (announced first) would have come before the deletion's.
      expect((await cluster.on(1, "DELETE", `products/${created.json.data.id}`)).status).toBe(204);
      await onA.untilChange("product.deleted");
      // And a second product on a, which b hears after any echo of its own deletion.
      expect((await cluster.on(0, "POST", "products", { body: { title: "Also on A", price: 5, product_type: "service" } })).status).toBe(201);
      await onB.untilChange("product.created", 2);
      await onA.untilChange("product.created", 2);
      const products = (changes: StreamChange[]) => changes.filter((c) => c.type.startsWith("product.")).map((c) => `${c.type} ${c.account_id}`);
      const expected = ["product.created", "product.deleted", "product.created"].map((type) => `${type} ${cluster.account}`);
      expect(products(onA.changes)).toEqual(expected);
      expect(products(onB.changes)).toEqual(expected);
    } finally {
      await onA.close();
      await onB.close();
    }
  });
});
