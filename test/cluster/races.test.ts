import { describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason } from "../../core/src/testing/postgres-server.js";
import { pollUntil } from "../crash/crash-api.js";
import { all, CLUSTER_ADMIN_KEY, count, type Cluster } from "./cluster.js";
import { useCluster } from "./use-cluster.js";

if (!postgresAvailable) console.warn(postgresSkipReason("the cluster races"));

/** Polls job `jobId` on process `index` until it is no longer processing; its last answer. */
async function settledJob(cluster: Cluster, index: number, jobId: string, token?: string, account = cluster.account) {
  const init = token ? { authorization: `Bearer ${token}` } : {};
  return pollUntil(`job ${jobId} on process ${index}`, 20_000, async () => {
    const r = await cluster.on(index, "GET", `/v1/accounts/${account}/pages/jobs/${jobId}`, init);
    expect(r.status).toBe(200);
    return r.json.data.status === "processing" ? undefined : r.json.data;
  });
}

/**
 * The per-key invariants of one service, held by 2 and 3 real `lp serve` processes on one PostgreSQL
 * database: every burst below is spread round robin over the processes, so each process takes part in every
 * race, and only the database's constraints and row locks can keep the rules.
 */
describe.skipIf(!postgresAvailable).each([2, 3])("a cluster of %i processes on one PostgreSQL database", (processes) => {
  // Deployments last 30 s, so the one that wins a race is still in flight when the last request lands.
  const cluster = useCluster({ processes, flags: ["--deploy-delay", "30s"] });

  it("every process serves the same dev account, token, application and admin key", async () => {
    for (const node of cluster.nodes) {
      expect(node.env.LP_ACCOUNT).toBe(cluster.account);
      expect(node.env.LP_TOKEN).toBe(cluster.token);
      expect(node.env.LP_APP_ID).toBe(cluster.nodes[0].env.LP_APP_ID);
      expect(node.env.LP_APP_SECRET).toBe(cluster.nodes[0].env.LP_APP_SECRET);
      expect(node.env.LP_ADMIN_KEY).toBe(CLUSTER_ADMIN_KEY);
    }
  });

  it("100 concurrent deployment starts of one page: one 202, 99 deployment_in_progress naming it (three pages at once)", async () => {
    const pageIds: string[] = [];
    for (let k = 0; k < 3; k++) {
      const created = await cluster.api.call("POST", "pages", { body: { product: { title: `Cluster deploy race ${k}`, description: "Raced.", price: 3, product_type: "service" } } });
      expect(created.status).toBe(202);
      const job = await settledJob(cluster, k % processes, created.json.data.job_id);
      expect(job.status).toBe("completed");
      pageIds.push(job.page_id);
    }
    // Every process reads each page once first, so none is slower to its first claim than the others.
    for (let i = 0; i < processes; i++) for (const pageId of pageIds) expect((await cluster.on(i, "GET", `pages/${pageId}`)).status).toBe(200);

    const bursts = await Promise.all(pageIds.map((pageId) => all(100, () => cluster.api.call("POST", `pages/${pageId}/deployments`))));
    for (const [k, results] of bursts.entries()) {
      const pageId = pageIds[k];
      const statuses = results.map((r) => r.status);
      expect(count(statuses, 202), `page ${k}: ${JSON.stringify(statuses)}`).toBe(1);
      expect(count(statuses, 409), JSON.stringify(results.filter((r) => r.status !== 409 && r.status !== 202).map((r) => r.text))).toBe(99);
      const winner = results.find((r) => r.status === 202)!.json.data;
      for (const loser of results.filter((r) => r.status === 409)) {
        expect(loser.json.error.code).toBe("deployment_in_progress");
        expect(loser.json.error.details.active_deployment_id).toBe(winner.deployment_id);
      }
      // Every process sees the one deployment, still in flight.
      for (let i = 0; i < processes; i++) {
        const history = await cluster.on(i, "GET", `pages/${pageId}/deployments?per_page=100`);
        expect(history.json.data.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([[winner.deployment_id, "deploying"]]);
      }
    }
  });

  it("100 concurrent POST /products with one Idempotency-Key execute once; the rest replay or get 409", async () => {
    const title = `Once across ${processes}`;
    const body = { title, price: 9, product_type: "service" };
    const headers = { "idempotency-key": `cluster-key-${processes}` };
    const results = await all(100, () => cluster.api.call("POST", "products", { body, headers }));

    const executed = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    const replayed = results.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === "true");
    const busy = results.filter((r) => r.status === 409);
    expect(executed, JSON.stringify(results.map((r) => r.status))).toHaveLength(1);
    expect(replayed.length + busy.length).toBe(99);
    for (const r of replayed) expect(r.text).toBe(executed[0].text);
    for (const r of busy) {
      expect(r.json.error.code).toBe("idempotency_key_in_use");
      expect(r.headers.get("retry-after")).toBe("1");
    }
    // One product exists, whichever process lists; the key now only replays, on every process.
    for (let i = 0; i < processes; i++) {
      const list = await cluster.on(i, "GET", `products?per_page=100&q=${encodeURIComponent(title)}`);
      expect(list.json.data.map((p: { id: string }) => p.id)).toEqual([executed[0].json.data.id]);
      const late = await cluster.on(i, "POST", "products", { body, headers });
      expect(late.headers.get("idempotent-replayed")).toBe("true");
      expect(late.text).toBe(executed[0].text);
    }
  });

  it("30 concurrent product creations on a quota of 5: five 201s, the rest quota_exceeded", async () => {
    const account = `acct_quota_${processes}`;
    const admin = { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` };
    // The account is made on one process and its token on another: both live in the database.
    expect((await cluster.on(0, "POST", "/_admin/accounts", { ...admin, body: { account_id: account, product_quota: 5 } })).status).toBe(201);
    const minted = await cluster.on(processes - 1, "POST", "/_admin/tokens", { ...admin, body: { account_id: account } });
    expect(minted.status).toBe(201);
    const token: string = minted.json.data.token;
    const create = (i: number) =>
      cluster.api.call("POST", `/v1/accounts/${account}/products`, { authorization: `Bearer ${token}`, body: { title: `Quota ${i}`, price: 1, product_type: "service" } });

    const first = await all(30, create);
    expect(count(first.map((r) => r.status), 201), JSON.stringify(first.map((r) => r.status))).toBe(5);
    for (const r of first.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.json.error).toMatchObject({ code: "quota_exceeded", details: { limit: 5 } });
    }
    for (let i = 0; i < processes; i++) {
      const products = await cluster.on(i, "GET", `/v1/accounts/${account}/products?per_page=100`, { authorization: `Bearer ${token}` });
      expect(products.json.data).toHaveLength(5);
    }
    // Full: a second wave gets nothing, whichever process it reaches; a deletion frees exactly one place.
    const second = await all(10, create);
    expect(count(second.map((r) => r.status), 403)).toBe(10);
    const doomed = first.find((r) => r.status === 201)!.json.data.id as string;
    expect((await cluster.on(0, "DELETE", `/v1/accounts/${account}/products/${doomed}`, { authorization: `Bearer ${token}` })).status).toBe(204);
    const third = await all(10, create);
    expect(count(third.map((r) => r.status), 201), JSON.stringify(third.map((r) => r.status))).toBe(1);
  });

  it("reads its writes: a product written on one process is in the next list served by every other", async () => {
    for (let i = 0; i < processes; i++) {
      for (let j = 0; j < processes; j++) {
        if (i === j) continue;
        const title = `Written on ${i}, read on ${j} (${processes})`;
        const made = await cluster.on(i, "POST", "products", { body: { title, price: 10 + i, product_type: "physical" } });
        expect(made.status).toBe(201);
        const id: string = made.json.data.id;

        const newest = await cluster.on(j, "GET", "products?per_page=5");
        expect(newest.json.data.map((p: { id: string }) => p.id), `list on ${j} after create on ${i}`).toContain(id);
        const found = await cluster.on(j, "GET", `products?q=${encodeURIComponent(title)}`);
        expect(found.json.data.map((p: { id: string }) => p.id)).toEqual([id]);

        const edited = await cluster.on(j, "PATCH", `products/${id}`, { body: { title: `${title} (edited)`, price: 99 } });
        expect(edited.status).toBe(200);
        const byUpdate = await cluster.on(i, "GET", "products?per_page=1&sort=-updated_at");
        expect(byUpdate.json.data[0]).toMatchObject({ id, title: `${title} (edited)`, price: 99 });
        const byPrice = await cluster.on(i, "GET", "products?per_page=100&sort=price");
        expect(byPrice.json.data.map((p: { id: string }) => p.id).at(-1)).toBe(id);

        expect((await cluster.on(i, "DELETE", `products/${id}`)).status).toBe(204);
        expect((await cluster.on(j, "GET", `products/${id}`)).status).toBe(404);
        const after = await cluster.on(j, "GET", "products?per_page=100");
        expect(after.json.data.map((p: { id: string }) => p.id)).not.toContain(id);
      }
    }
  });

  it("reads its writes for pages: a page completed on one process is listed by every other", async () => {
    for (let i = 0; i < processes; i++) {
      const created = await cluster.on(i, "POST", "pages", { body: { product: { title: `Listed from ${i}`, description: "Seen everywhere.", price: 4, product_type: "service" } } });
      expect(created.status, created.text).toBe(202);
      const job = await settledJob(cluster, i, created.json.data.job_id);
      expect(job.status).toBe("completed");
      for (let j = 0; j < processes; j++) {
        const pages = await cluster.on(j, "GET", "pages?per_page=100&sort=-created_at");
        expect(pages.json.data.map((p: { id: string }) => p.id), `pages listed on ${j} after a job on ${i}`).toContain(job.page_id);
      }
    }
  });
});
