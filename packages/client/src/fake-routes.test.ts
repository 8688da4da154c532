import { describe, expect, it } from "vitest";
import { createClient, WaitTimeoutError, type Deployment } from "./index.js";
import { createFakeFetch } from "./testing/fake-fetch.js";

const base = { baseUrl: "http://svc.test/", token: "tok", accountId: "acct_1", appId: "app_1", appSecret: "s3cret" };
const deployment = (status: Deployment["status"], step: Deployment["deploy_step"]): Deployment => ({
  id: "d1", page_id: "p1", status, deploy_step: step, error_code: null, error_message: null,
  deployed_url: status === "succeeded" ? "http://svc.test/sites/acct_1/chair/" : null, deployed_at: null,
  created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z",
});

describe("deployments (fake fetch)", () => {
  it("starts a deployment with an empty JSON body and polls it until it settles", async () => {
    const states = [deployment("deploying", "rendering"), deployment("deploying", "uploading"), deployment("succeeded", null)];
    const { fetch, seen } = createFakeFetch((req, i) =>
      i === 0 ? { status: 202, body: { data: { deployment_id: "d1", poll_url: "/x", deployed_url: null, deployed_at: null } } } : { body: { data: states[i - 1] } },
    );
    const client = createClient({ ...base, fetch });
    const accepted = await client.deployments.create("p1", { idempotencyKey: "k1" });
    expect(accepted.deployment_id).toBe("d1");
    expect(seen[0]).toMatchObject({ method: "POST", body: "{}" });
    expect(seen[0].url.pathname).toBe("/v1/accounts/acct_1/pages/p1/deployments");
    expect(seen[0].headers.get("authorization")).toBe("Bearer tok");
    expect(seen[0].headers.get("idempotency-key")).toBe("k1");
    const steps: (string | null)[] = [];
    const done = await client.waitForDeployment("p1", "d1", { intervalMs: 0, onProgress: (d) => steps.push(d.deploy_step) });
    expect(done.status).toBe("succeeded");
    expect(steps).toEqual(["rendering", "uploading", null]);
    expect(seen.slice(1).map((r) => r.url.pathname)).toEqual(Array(3).fill("/v1/accounts/acct_1/pages/p1/deployments/d1"));
  });

  it("throws WaitTimeoutError with the last state when time runs out", async () => {
    const { fetch } = createFakeFetch(() => ({ body: { data: deployment("deploying", "rendering") } }));
    const client = createClient({ ...base, fetch });
    let clock = 0;
    const error = await client.waitForDeployment("p1", "d1", { intervalMs: 0, timeoutMs: 10, now: () => (clock += 6) }).catch((e) => e);
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect(error.last.deploy_step).toBe("rendering");
  });

  it("surfaces deployment_in_progress with its details", async () => {
    const body = { error: { code: "deployment_in_progress", message: "busy", details: { active_deployment_id: "d0", poll_url: "/p" }, request_id: "req_9" } };
    const { fetch } = createFakeFetch(() => ({ status: 409, body }));
    const error = await createClient({ ...base, fetch }).deployments.create("p1").catch((e) => e);
    expect(error).toMatchObject({ status: 409, code: "deployment_in_progress", requestId: "req_9", details: { active_deployment_id: "d0" } });
  });

  it("lists deployments with filters", async () => {
    const { fetch, seen } = createFakeFetch(() => ({ body: { data: [], pagination: { next_cursor: null, has_more: false } } }));
    await createClient({ ...base, fetch }).deployments.list("p1", { status: "failed", per_page: 5 });
    expect(seen[0].url.search).toBe("?status=failed&per_page=5");
  });
});

describe("webhooks (fake fetch, developer plane)", () => {
  const endpoint = { id: "we_1", url: "http://127.0.0.1:9/hook", events: ["product.created"], environment: "production", concurrency_limit: 4, status: "active" };

  it("sends HTTP Basic and the right method and path for all ten operations", async () => {
    const { fetch, seen } = createFakeFetch((req) => {
      if (req.url.pathname.endsWith("/deliveries") || req.url.pathname.endsWith("webhook-endpoints") && req.method === "GET") {
        return { body: { data: [], pagination: { next_cursor: null, has_more: false } } };
      }
      return { status: req.method === "DELETE" ? 204 : 200, body: { data: { ...endpoint, secret: "whsec_x" } } };
    });
    const hooks = createClient({ ...base, fetch }).webhooks;
    const created = await hooks.create({ url: endpoint.url, events: ["product.created"], environment: "test", concurrency_limit: 2 });
    expect(created.secret).toBe("whsec_x");
    await hooks.list();
    await hooks.get("we_1");
    await hooks.update("we_1", { status: "paused" });
    await hooks.verify("we_1");
    await hooks.rotateSecret("we_1");
    await hooks.test("we_1");
    await hooks.deliveries("we_1", { status: "failed", event_type: "product.created" });
    await hooks.retry("we_1", "dlv_2");
    await hooks.delete("we_1");
    expect(seen.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      "POST /v1/developer/webhook-endpoints",
      "GET /v1/developer/webhook-endpoints",
      "GET /v1/developer/webhook-endpoints/we_1",
      "PATCH /v1/developer/webhook-endpoints/we_1",
      "POST /v1/developer/webhook-endpoints/we_1/verify",
      "POST /v1/developer/webhook-endpoints/we_1/rotate-secret",
      "POST /v1/developer/webhook-endpoints/we_1/test",
      "GET /v1/developer/webhook-endpoints/we_1/deliveries?status=failed&event_type=product.created",
      "POST /v1/developer/webhook-endpoints/we_1/deliveries/dlv_2/retry",
      "DELETE /v1/developer/webhook-endpoints/we_1",
    ]);
    const basic = `Basic ${Buffer.from("app_1:s3cret").toString("base64")}`;
    expect(seen.every((r) => r.headers.get("authorization") === basic)).toBe(true);
    expect(JSON.parse(seen[0].body as string)).toEqual({ url: endpoint.url, events: ["product.created"], environment: "test", concurrency_limit: 2 });
  });
});
