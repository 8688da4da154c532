import { useEffect, useState } from "preact/hooks";
import { html, when } from "../html.js";
import { toHash } from "../route.js";
import { Timeline, type Run } from "./timeline.js";

const JOB_STEPS = ["analyzing_product", "writing_copy", "generating_images", "building_page"];
const DEPLOY_STEPS = ["rendering", "uploading", "activating"];
/** How often a view with a run in progress looks again: steps write records but emit no event. */
const POLL_MS = 300;

/**
 * A counter that grows every {@link POLL_MS} while `active`: put it in a loading effect's dependencies to
 * follow work in progress, and it stops by itself once the work settled.
 */
export function usePoll(active: boolean): number {
  const [n, setN] = useState(0);
  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => setN((x) => x + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [active, n]);
  return n;
}

/** Whether a job or deployment is still moving. */
export const isRunning = (status: string) => status === "processing" || status === "deploying" || status === "pending";

/** A generation job (as `/_dashboard/api/jobs` lists it) as a timeline. */
export function jobRun(j: any): Run {
  const ended = j.status === "completed" || j.status === "failed";
  return { steps: JOB_STEPS, current: j.step === "done" ? null : j.step, status: j.status, stepTimes: j.step_times ?? {}, startedAt: j.created_at, endedAt: ended ? (j.completed_at ?? j.updated_at) : null };
}

/** A deployment (as `/_dashboard/api/deployments` lists it) as a timeline. */
export function deploymentRun(d: any): Run {
  const ended = d.status === "succeeded" || d.status === "failed";
  return { steps: DEPLOY_STEPS, current: d.deploy_step, status: d.status, stepTimes: d.step_times ?? {}, startedAt: d.created_at, endedAt: ended ? (d.deployed_at ?? d.updated_at) : null };
}

/** One generation job: its steps and durations, warnings, and its error when it failed (a failed job has no page). */
export function JobItem({ job, account }: { job: any; account: string }) {
  return html`<li class="card job" data-id=${job.job_id} data-status=${job.status}>
    <p><span class=${`badge ${job.status}`}>${job.status}</span> <span class="mono small">${job.job_id}</span>
      ${job.simulate && html` · <span class="small">Lp-Simulate: ${job.simulate}</span>`}
      ${job.page_id && html` · <a href=${toHash("page", job.page_id, { account })}>open the page</a>`}</p>
    <${Timeline} label=${`Generation job ${job.job_id}`} run=${jobRun(job)} />
    ${job.step_detail && isRunning(job.status) && html`<p class="small">${job.step_detail}</p>`}
    ${job.warnings?.length > 0 && html`<ul>${job.warnings.map((w: any) => html`<li>Warning: ${w.message ?? JSON.stringify(w)}</li>`)}</ul>`}
    ${job.error && html`<p class="error-text">Failed at ${String(job.step).replace(/_/g, " ")}: ${job.error.code}: ${job.error.message}</p>`}
  </li>`;
}

/** One deployment: its steps and durations, and its error when it failed. */
export function DeploymentItem({ deployment: d }: { deployment: any }) {
  return html`<li class="card deployment" data-id=${d.id} data-status=${d.status}>
    <p><span class=${`badge ${d.status}`}>${d.status}</span> <span class="mono small">${d.id}</span> · ${when(d.created_at)}
      ${d.simulate && html` · <span class="small">Lp-Simulate: ${d.simulate}</span>`}</p>
    <${Timeline} label=${`Deployment ${d.id}`} run=${deploymentRun(d)} />
    ${d.error_code && html`<p class="error-text">Failed at ${d.deploy_step ?? "a step"}: ${d.error_code}: ${d.error_message}</p>`}
  </li>`;
}
