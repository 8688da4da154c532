import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason } from "../../core/src/testing/postgres-server.js";
import { pollUntil } from "../crash/crash-api.js";
import { startCluster, type Cluster } from "./cluster.js";
import { nginxAvailable, nginxRequired, startRecipeNginx, type RecipeNginx } from "./nginx.js";

if (!nginxAvailable && nginxRequired) throw new Error("nginx is required (LP_REQUIRE_NGINX or CI) but cannot be run: apt-get install nginx-light");
if (!nginxAvailable) console.warn('[lp] skipping the nginx recipe test: nginx not found (Debian package "nginx-light"; set LP_NGINX to another binary)');
if (!postgresAvailable) console.warn(postgresSkipReason("the nginx recipe test"));

/** One request through the load balancer: status, Retry-After and the parsed body. */
async function through(nginx: RecipeNginx, cluster: Cluster, method: string, path: string, body?: unknown) {
  const response = await fetch(`${nginx.url}/v1/accounts/${cluster.account}/${path}`, {
    method,
    headers: { authorization: `Bearer ${cluster.token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  let json: { error?: { code?: string; request_id?: string }; data?: { id?: string } } | null = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, retryAfter: response.headers.get("retry-after"), type: response.headers.get("content-type"), json, text };
}

/**
 * The nginx block of docs/scale-out.md, copied as it is (only the upstream addresses and the listener are
 * changed), in front of two real `lp serve` processes: a database outage reaches clients as lp's own 503 JSON
 * with Retry-After on every request, service resumes through the load balancer as soon as the processes
 * serve again, a dead process is skipped, and with no process left the answer is still a JSON 503.
 */
describe.skipIf(!nginxAvailable || !postgresAvailable)("the nginx recipe of docs/scale-out.md", () => {
  let cluster: Cluster;
  let nginx: RecipeNginx;
  beforeAll(async () => {
    cluster = await startCluster({ processes: 2 });
    nginx = await startRecipeNginx(cluster.nodes.map((n) => new URL(n.url).host));
  }, 60_000);
  afterAll(async () => {
    await nginx?.stop();
    await cluster?.stop();
  });

  it("passes a database outage through as lp's 503 JSON with Retry-After, and serves again right after", { timeout: 120_000 }, async () => {
    const made = await through(nginx, cluster, "POST", "products", { title: "Before the outage", price: 3, product_type: "service" });
    expect(made.status, made.text).toBe(201);
    const id = made.json!.data!.id!;

    await cluster.postgres.stop({ hard: true });
    const during = [];
    try {
      for (let i = 0; i < 30; i++) {
        const [method, path, body] = [["GET", `products/${id}`], ["GET", "products"], ["POST", "products", { title: "During", price: 1, product_type: "service" }]][i % 3] as [string, string, unknown?];
        during.push({ request: `${method} ${path}`, ...(await through(nginx, cluster, method, path, body)) });
      }
    } finally {
      // Back whatever the answers were: the next test needs the database.
      await cluster.postgres.restart();
    }
    for (const answer of during) {
      expect(answer.status, `${answer.request}: ${answer.text}`).toBe(503);
      expect(answer.json?.error?.code, answer.text).toBe("service_unavailable");
      expect(answer.json?.error?.request_id, "lp's own answer, not the load balancer's fallback").toMatch(/^req_/);
      expect(answer.retryAfter).toBe("1");
      expect(answer.type).toMatch(/^application\/json/);
    }

    for (const node of cluster.nodes) {
      await pollUntil(`process ${node.index} serving again`, 30_000, async () => ((await node.api.call("GET", `products/${id}`)).status === 200 ? true : undefined));
    }
    // Neither process was marked failed by the outage: the very next requests through nginx succeed.
    const after = [];
    for (let i = 0; i < 10; i++) after.push((await through(nginx, cluster, "GET", `products/${id}`)).status);
    expect(after).toEqual(Array(10).fill(200));
  });

  it("skips a killed process, and answers a JSON 503 with Retry-After when no process is left", { timeout: 60_000 }, async () => {
    await cluster.kill(0);
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await through(nginx, cluster, "GET", "products")).status);
    expect(statuses).toEqual(Array(10).fill(200));

    await cluster.kill(1);
    const none = await through(nginx, cluster, "GET", "products");
    expect(none.status, none.text).toBe(503);
    expect(none.retryAfter).toBe("1");
    expect(none.type).toMatch(/^application\/json/);
    expect(none.json?.error?.code).toBe("service_unavailable");
  });
});
