import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLp, spawnLp, startServe, type Served } from "./processes.js";

describe("lp (built): waiting, conflicts, retries and credentials", () => {
  let s: Served;
  beforeAll(async () => {
    // A generation takes about 50 ms (10 ms per step): long enough that a poll right after starting it finds it
    // still running, short against the first poll's 250 ms.
    s = await startServe(["--seed", "--retry-schedule", "0", "--deploy-delay", "2s", "--generation-delay", "10ms"]);
  });
  afterAll(async () => {
    await s.stop();
  });

  const productId = async () => (await s.lp(["products", "list", "--limit", "1", "--json"])).json()[0].id as string;
  it("pages create --wait polls the job first soon after starting it, before the 2 s interval, and stops at the poll that finds it settled", async () => {
    // No LP_POLL_INTERVAL_MS: the default --interval of 2s applies.
    const page = await s.lp(["pages", "create", "--product-id", await productId(), "--wait", "--json"], { env: { LP_POLL_INTERVAL_MS: "" } });
    expect(page.code).toBe(0);
    expect(page.json()).toMatchObject({ status: "draft" });
    // The journal, oldest first: the POST that started the job, then each poll with the status it answered. The
    // polls are judged by what they found, so a machine slow enough to find the job still running at the first
    // poll shows the interval's poll after it instead of failing the count.
    type Entry = { seq: number; started_at: string; method: string; path: string; response: { body: string } };
    const journal = await s.lp(["requests", "--limit", "50", "--json"]);
    const entries = (journal.json() as Entry[]).sort((a, b) => a.seq - b.seq);
    const start = entries.filter((e) => e.method === "POST" && e.path.endsWith("/pages")).at(-1)!;
    const jobId = (JSON.parse(start.response.body) as { data: { job_id: string } }).data.job_id;
    const polls = entries.filter((e) => e.method === "GET" && e.path.endsWith(`/pages/jobs/${jobId}`));
    const found = polls.map((e) => (JSON.parse(e.response.body) as { data: { status: string } }).data.status);
    expect(found.at(-1)).toBe("completed");
    expect(found.slice(0, -1).every((status) => status === "processing")).toBe(true);
    const times = [start, ...polls].map((e) => Date.parse(e.started_at));
    expect(times[1]! - times[0]!).toBeLessThan(2000);
    for (let i = 2; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1900);
  });

  it("a second pages deploy is refused with the active deployment's id and poll URL", async () => {
    const page = (await s.lp(["pages", "create", "--product-id", await productId(), "--wait", "--json"])).json();
    // Both at once: one starts the deployment, which takes 2 s, and the other finds it in flight. (One after the
    // other, a start of the second process slowed past 2 s by a loaded machine found the first one finished.)
    const both = await Promise.all([s.lp(["pages", "deploy", page.id, "--json"]), s.lp(["pages", "deploy", page.id, "--json"])]);
    const first = both.find((run) => run.code === 0);
    const second = both.find((run) => run !== first)!;
    expect(both.map((run) => run.code).sort(), both.map((run) => run.stderr).join("\n")).toEqual([0, 1]);
    const active = first!.json().deployment_id as string;
    expect(second.stderr).toContain(`already in flight: ${active} (poll ${s.env.LP_API_URL}/v1/accounts/${s.env.LP_ACCOUNT}/pages/${page.id}/deployments/${active})`);
    expect(second.stderr).toContain(`lp deployments get ${page.id} ${active} --wait`);
    expect(second.stderr).toContain("code: deployment_in_progress");
  });

  it("webhooks retry takes the id lp listen prints, and finds the endpoint itself", async () => {
    const listen = spawnLp(["listen", "--register", "--events", "product.created", "--respond", "500"], { env: s.env, cwd: s.sandbox.dir });
    try {
      await listen.waitFor("stderr", /Ready: receiving webhooks at /);
      expect((await s.lp(["products", "create", "--title", "Retry me", "--price", "3", "--type", "service"])).code).toBe(0);
      const [line, id] = await listen.waitFor("stdout", /product\.created\s+(\S+)\s+verified\s+→ 500\s+\(attempt 1\)\n/);
      expect(line).toMatch(/dlv_/);
      const retried = await s.lp(["webhooks", "retry", id, "--json"]);
      expect(retried.code).toBe(0);
      expect(retried.json()).toMatchObject({ id, status: "pending" });
      await listen.waitFor("stdout", new RegExp(`${id}\\s+verified\\s+→ 500\\s+\\(attempt 2, duplicate\\)`));
    } finally {
      listen.child.kill("SIGTERM");
      expect(await listen.exited).toBe(0);
    }
  });

  it("--app-secret alone takes the application id from ./.lp/credentials.json, like --token does", async () => {
    // The server runs in the sandbox folder with fs-free memory storage, but still writes .lp/credentials.json there.
    const bare = { PATH: s.sandbox.env.PATH, HOME: s.sandbox.dir, XDG_CONFIG_HOME: s.sandbox.env.XDG_CONFIG_HOME, NO_COLOR: "1" };
    const listed = await runLp(["--app-secret", s.env.LP_APP_SECRET, "webhooks", "list", "--json"], { env: bare, cwd: s.sandbox.dir });
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    const wrong = await runLp(["--app-secret", "not-the-secret", "webhooks", "list"], { env: bare, cwd: s.sandbox.dir });
    expect(wrong.code).toBe(4);
  });
});
