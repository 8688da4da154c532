import { formatDuration } from "../../../runtime/durations.js";
import { need, type Check } from "../checks.js";
import { dataOf, itemsOf } from "../http.js";
import { pollAtPace, type Scenario } from "../scenario-context.js";
import { show } from "../schema-issues.js";

/**
 * Sent with the first deployment so that a local lp keeps it in flight for a few seconds and the 409 can
 * be seen (DESIGN §8); a hosted instance ignores a header it does not know.
 */
const SLOW = { "lp-simulate": "slow" };

/** Deployments: 202 with Location, 409 while one is in flight, polled to `succeeded`, the site answering. */
export async function deploymentsArea(s: Scenario): Promise<void> {
  const { check, http, ledger, state } = s;
  const pagePath = (rest = "") => s.accountPath(`/pages/${encodeURIComponent(need(state.page, "jobs.get (product_id)"))}${rest}`);

  state.deployment = await check("deployments", "deployments.create", "202 with deployment_id and poll_url, Location = poll_url", async (c) => {
    const ex = await http.send(c, "POST", pagePath("/deployments"), { headers: SLOW });
    const id = ledger.fromAnswer(ex, "deployment", "deployment", "deployment_id", { pageId: state.page });
    c.status(ex, 202);
    c.schema(ex.body, s.contract.deploymentAcceptedResponse);
    const { poll_url: pollUrl } = dataOf(ex);
    if (id) c.rule(typeof pollUrl === "string" && pollUrl.endsWith(`/deployments/${id}`), `data.poll_url: expected the path of the deployment ${id}, got ${show(pollUrl)}`);
    const location = ex.headers.get("location");
    c.rule(location !== null && location === pollUrl, `header Location: expected data.poll_url, got ${location === null ? "none" : show(location)}`);
    return id;
  });

  await check("deployments", "deployments.create (in flight)", "409 deployment_in_progress naming the active deployment", async (c) => {
    const first = need(state.deployment, "deployments.create");
    const ex = await http.send(c, "POST", pagePath("/deployments"));
    if (ex.status >= 200 && ex.status < 300) {
      ledger.fromAnswer(ex, "deployment", "deployment (second start)", "deployment_id", { pageId: state.page });
      const settled = dataOf(await http.send(c, "GET", pagePath(`/deployments/${encodeURIComponent(first)}`))).status;
      if (settled !== "deploying") return c.skip(`the first deployment was ${settled ?? "settled"} before the second start: nothing was in flight to refuse`);
      c.problem(`status ${ex.status}, expected 409: a second deployment started while ${first} was in flight`);
      return;
    }
    const error = c.envelope(ex, "deployment_in_progress");
    const details = (error?.details ?? {}) as Record<string, unknown>;
    c.rule(details.active_deployment_id === first, `error.details.active_deployment_id: expected ${first}, got ${show(details.active_deployment_id)}`);
    c.rule(typeof details.poll_url === "string" && details.poll_url.endsWith(`/deployments/${first}`), `error.details.poll_url: expected the path of ${first}, got ${show(details.poll_url)}`);
  });

  const deployed = await check("deployments", "deployments.get (poll)", "deploying, then succeeded: deployed_url, deployed_at, deploy_step null", (c) =>
    pollDeployment(s, c, pagePath(`/deployments/${encodeURIComponent(need(state.deployment, "deployments.create"))}`)),
  );

  await check("deployments", "deployments.list", "200 with the page's deployments, newest first", async (c) => {
    const first = need(state.deployment, "deployments.create");
    const ex = await http.send(c, "GET", pagePath("/deployments"));
    if (!c.status(ex, 200)) return;
    c.schema(ex.body, s.contract.deploymentListResponse);
    const ids = itemsOf(ex).map((d) => d.id);
    c.rule(ids.includes(first), `the deployment ${first} is missing`);
    const times = itemsOf(ex).map((d) => String(d.created_at));
    c.rule(times.every((t, i) => i === 0 || times[i - 1] >= t), "data: not newest first (created_at)");
  });

  await check("deployments", "deployments.site", "the deployed URL answers 200 with HTML", async (c) => {
    const url = need(deployed, "deployments.get (poll)");
    const answer = await http.getUrl(c, url);
    c.status(answer, 200, "GET data.deployed_url");
    c.rule((answer.headers.get("content-type") ?? "").startsWith("text/html"), `GET data.deployed_url: content-type ${answer.headers.get("content-type")}, expected text/html`);
    c.rule(answer.bytes > 0, "GET data.deployed_url: empty body");
  });

  await check("deployments", "pages.get (published)", "200 with status published and the deployed URL", async (c) => {
    const url = need(deployed, "deployments.get (poll)");
    const ex = await http.send(c, "GET", pagePath());
    if (!c.status(ex, 200)) return;
    c.schema(ex.body, s.contract.pageResponse);
    c.rule(dataOf(ex).status === "published", `data.status: expected "published" after a successful deployment, got ${show(dataOf(ex).status)}`);
    c.rule(dataOf(ex).deployed_url === url, `data.deployed_url: expected the deployment's ${url}, got ${show(dataOf(ex).deployed_url)}`);
  });
}

/** Polls a deployment at the pace; every answer is held to `deploymentResponse`, its steps to their order. */
async function pollDeployment(s: Scenario, c: Check, path: string): Promise<string | undefined> {
  const steps: readonly string[] = s.contract.DEPLOY_STEPS;
  let lastStep = -1;
  const { value: deployment, done } = await pollAtPace(s, s.opts.deployTimeoutMs, async () => {
    const ex = await s.http.send(c, "GET", path);
    if (!c.status(ex, 200)) return { value: undefined, done: true };
    c.schema(ex.body, s.contract.deploymentResponse);
    const d = dataOf(ex);
    if (d.status === "deploying") {
      const at = steps.indexOf(d.deploy_step);
      c.rule(at < 0 || at >= lastStep, `data.deploy_step went back from ${steps[lastStep]} to ${d.deploy_step} (steps run ${steps.join(", ")})`);
      lastStep = Math.max(lastStep, at);
      c.rule(d.deployed_url === null && d.deployed_at === null, "data.deployed_url, data.deployed_at: expected null while deploying");
    }
    return { value: d, done: d.status !== "deploying" };
  });
  if (!deployment) return undefined;
  if (!done) {
    c.problem(`still deploying after ${formatDuration(s.opts.deployTimeoutMs)} (step ${deployment.deploy_step}); --deploy-timeout waits longer`);
    return undefined;
  }
  const failure = deployment.error_code ? ` (${show(deployment.error_code)}: ${show(deployment.error_message)})` : "";
  c.rule(deployment.status === "succeeded", `data.status: expected "succeeded", got ${show(deployment.status)}${failure}`);
  c.rule(deployment.deploy_step === null, `data.deploy_step: expected null on success, got ${show(deployment.deploy_step)}`);
  c.rule(typeof deployment.deployed_url === "string", "data.deployed_url: expected the site's URL on success");
  c.rule(typeof deployment.deployed_at === "string", "data.deployed_at: expected a timestamp on success");
  c.rule(deployment.error_code === null && deployment.error_message === null, "data.error_code, data.error_message: expected null on success");
  return deployment.status === "succeeded" && typeof deployment.deployed_url === "string" ? deployment.deployed_url : undefined;
}
