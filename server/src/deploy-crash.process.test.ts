import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServe } from "./testing/spawn-serve.js";

const dataDir = mkdtempSync(join(tmpdir(), "lp-deploy-crash-"));

/**
 * The crash case of the deployments issue, for real: `lp serve` on its embedded store is SIGKILLed in the middle of a
 * slow deployment, started again on the same folder, and the deployment is polled.
 */
describe("a server killed mid-deployment", () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("marks the deployment worker_terminated at its step on the next start, and the page deploys again", { timeout: 60_000 }, async () => {
    const env = { LP_SERVE_STORAGE: "sqlite", LP_SERVE_DATA_DIR: dataDir, LP_SERVE_PORT: "0" };
    const first = await spawnServe(env);
    const api = (base: string) => `${base}/v1/accounts/${first.env.LP_ACCOUNT}`;
    const headers = { authorization: `Bearer ${first.env.LP_TOKEN}`, "content-type": "application/json" };
    const call = async (base: string, method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
      const res = await fetch(`${api(base)}${path}`, { method, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as any };
    };
    const url1 = first.env.LP_API_URL;
    const created = await call(url1, "POST", "/pages", { product: { title: "Kill Test", description: "Crash me", price: 1, product_type: "service" } });
    let job = created.json.data;
    for (let i = 0; i < 200 && job.status !== "completed"; i++) job = (await call(url1, "GET", `/pages/jobs/${created.json.data.job_id}`)).json.data;
    expect(job.status).toBe("completed");

    const started = await call(url1, "POST", `/pages/${job.page_id}/deployments`, undefined, { "lp-simulate": "slow" });
    expect(started.status).toBe(202);
    const pollPath = started.json.data.poll_url.replace(`/v1/accounts/${first.env.LP_ACCOUNT}`, "");
    const before = (await call(url1, "GET", pollPath)).json.data;
    expect(before.status).toBe("deploying");

    first.child.kill("SIGKILL");
    expect((await first.exit).signal).toBe("SIGKILL");

    const second = await spawnServe(env);
    const after = (await call(second.env.LP_API_URL, "GET", pollPath)).json.data;
    expect(after).toMatchObject({ status: "failed", error_code: "worker_terminated", deploy_step: before.deploy_step });
    expect(after.error_message).toContain(before.deploy_step);

    const again = await call(second.env.LP_API_URL, "POST", `/pages/${job.page_id}/deployments`);
    expect(again.status).toBe(202);
    second.child.kill("SIGTERM");
    expect((await second.exit).code).toBe(0);
  });
});
