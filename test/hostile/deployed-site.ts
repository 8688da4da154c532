import { expect } from "vitest";
import { bearer, type Target } from "./hostile-client.js";

const POLL_INTERVAL_MS = 50;
const POLL_LIMIT = 400;

async function api(target: Target, method: string, path: string, body?: unknown) {
  const res = await fetch(`${target.url}${path.startsWith("/") ? path : `/v1/accounts/${target.account}/${path}`}`, {
    method,
    headers: { ...bearer(target), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Polls a job or deployment the way a client does, until `done` says so. */
async function poll(target: Target, url: string, done: (data: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (let i = 0; i < POLL_LIMIT; i++) {
    const { json } = await api(target, "GET", url);
    if (done(json.data)) return json.data;
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
  throw new Error(`${url} did not settle`);
}

/** Generates a page for an inline product and deploys it; returns the page id, the site's path and the signed builder link's path. */
export async function deploySite(target: Target): Promise<{ pageId: string; sitePath: string; builderPath: string }> {
  const created = await api(target, "POST", "pages", { product: { title: "Hostile Mug", description: "Stoneware.", price: 9, product_type: "physical" } });
  expect(created.status).toBe(202);
  const job = await poll(target, created.json.data.poll_url, (d) => d.status === "completed" || d.status === "failed");
  expect(job.status).toBe("completed");
  const pageId = job.page_id as string;
  const deploy = await api(target, "POST", `pages/${pageId}/deployments`);
  expect(deploy.status).toBe(202);
  const done = await poll(target, deploy.json.data.poll_url, (d) => d.status === "succeeded" || d.status === "failed");
  expect(done.status).toBe("succeeded");
  const builder = new URL(job.builder_url as string);
  return { pageId, sitePath: new URL(done.deployed_url as string).pathname, builderPath: `${builder.pathname}${builder.search}` };
}
