import { afterEach, describe, expect, it } from "vitest";
import { assertBuilt, createSandbox, spawnLp, type LpProcess } from "./processes.js";

type Sandbox = ReturnType<typeof createSandbox>;

/** `lp serve` on its embedded store in the sandbox's data dir, ready, with its LP_* lines parsed. */
async function serve(sandbox: Sandbox, extra: string[]) {
  const proc = spawnLp(["serve", "--storage", "sqlite", "--data-dir", "data", "--port", "0", "--print-env", "--quiet", ...extra], { env: sandbox.env, cwd: sandbox.dir });
  await proc.waitFor("stderr", /^Ready at /m);
  await proc.waitFor("stdout", /^LP_APP_SECRET=.*\n/m);
  const env = Object.fromEntries(proc.stdout.trim().split("\n").map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]));
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${env.LP_API_URL}/v1/accounts/${env.LP_ACCOUNT}${path}`, {
      method,
      headers: { authorization: `Bearer ${env.LP_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, data: ((await res.json()) as { data: any }).data };
  };
  return { proc, call };
}

/** A page made and generated (no generation delay), then a deployment started: it is in flight when this returns. */
async function startDeployment(call: Awaited<ReturnType<typeof serve>>["call"]) {
  const created = await call("POST", "/pages", { product: { title: "Drain", description: "Stop me gently", price: 3, product_type: "service" } });
  expect(created.status).toBe(202);
  let job = created.data;
  for (let i = 0; i < 400 && job.status !== "completed"; i++) job = (await call("GET", `/pages/jobs/${created.data.job_id}`)).data;
  expect(job.status).toBe("completed");
  const started = await call("POST", `/pages/${job.page_id}/deployments`);
  expect(started.status).toBe(202);
  const path = `/pages/${job.page_id}/deployments/${started.data.deployment_id}`;
  expect((await call("GET", path)).data.status).toBe("deploying");
  return { pageId: job.page_id as string, deploymentId: started.data.deployment_id as string, path };
}

/**
 * DESIGN §11: SIGTERM stops accepting, lets background steps finish within `--drain-timeout`, prints
 * "Stopped." and exits 0; what could not finish is named and left to the next start's recovery.
 */
describe("lp serve (built): shutdown drains background work", () => {
  let sandbox: Sandbox;
  const running: LpProcess[] = [];
  afterEach(() => {
    for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    sandbox?.remove();
  });

  it("finishes a deployment in flight on SIGTERM, exits 0, and the deployment is succeeded after a restart", { timeout: 60_000 }, async () => {
    assertBuilt();
    sandbox = createSandbox();
    const first = await serve(sandbox, ["--deploy-delay", "3s"]);
    running.push(first.proc);
    const { path, pageId } = await startDeployment(first.call);

    first.proc.child.kill("SIGTERM");
    expect(await first.proc.exited).toBe(0);
    expect(first.proc.stderr).toMatch(/SIGTERM: stopping;[^\n]*\nStopped\.\n$/);
    expect(first.proc.stderr).not.toContain("left for recovery");

    const second = await serve(sandbox, []);
    running.push(second.proc);
    const after = (await second.call("GET", path)).data;
    expect(after).toMatchObject({ status: "succeeded", error_code: null });
    expect((await second.call("GET", `/pages/${pageId}`)).data.deployed_url).toBe(after.deployed_url);
    second.proc.child.kill("SIGINT");
    expect(await second.proc.exited).toBe(0);
  });

  it("names what the drain timeout cut short, exits 0, and the next start fails it as worker_terminated", { timeout: 60_000 }, async () => {
    assertBuilt();
    sandbox = createSandbox();
    // Each of the three steps pauses 20 s: far beyond a 200 ms drain.
    const first = await serve(sandbox, ["--deploy-delay", "60s", "--drain-timeout", "200ms"]);
    running.push(first.proc);
    const { path, deploymentId } = await startDeployment(first.call);

    first.proc.child.kill("SIGTERM");
    expect(await first.proc.exited).toBe(0);
    expect(first.proc.stderr).toContain(`Drain timeout (200ms): left for recovery at the next start: deployment ${deploymentId}`);
    expect(first.proc.stderr).toMatch(/Stopped\.\n$/);

    const second = await serve(sandbox, []);
    running.push(second.proc);
    expect((await second.call("GET", path)).data).toMatchObject({ status: "failed", error_code: "worker_terminated", deploy_step: "rendering" });
    second.proc.child.kill("SIGTERM");
    expect(await second.proc.exited).toBe(0);
  });

  it("exits at once on a second signal during the drain", { timeout: 60_000 }, async () => {
    assertBuilt();
    sandbox = createSandbox();
    // The default 10-s drain would wait on the 20-s steps; the second signal must not.
    const first = await serve(sandbox, ["--deploy-delay", "60s"]);
    running.push(first.proc);
    await startDeployment(first.call);
    first.proc.child.kill("SIGTERM");
    await first.proc.waitFor("stderr", /SIGTERM: stopping;/);
    first.proc.child.kill("SIGINT");
    expect(await first.proc.exited).toBe(130);
    expect(first.proc.stderr).not.toContain("Stopped.");
  });
});
