import type { Deployment, Job } from "@lp/client";
import type { Context } from "./context.js";
import { parseDuration } from "./durations.js";
import { CliError, UsageError } from "./errors.js";
import { EXIT } from "./exit-codes.js";
import { createProgress } from "./progress.js";

/** `--wait`, `--interval`, `--timeout` as parsed. */
export interface WaitOptions {
  wait: boolean;
  /** Before the first poll: short, because most local jobs and deployments settle within it. */
  firstPollMs: number;
  intervalMs: number;
  timeoutMs: number;
}

/** When the first poll goes out after starting the work; later ones follow `--interval`. */
export const FIRST_POLL_MS = 250;

/**
 * Parses the wait flags. `--interval` must be 2s to 5s, the polling rate the service asks for;
 * `LP_POLL_INTERVAL_MS` overrides it without bounds (tests, local servers).
 */
export function toWaitOptions(flags: { wait?: boolean; interval?: string; timeout?: string }, env: Record<string, string | undefined>): WaitOptions {
  let intervalMs = parseDuration(flags.interval ?? "2s", "--interval");
  if (intervalMs < 2000 || intervalMs > 5000) throw new UsageError(`--interval: must be from 2s to 5s, got ${flags.interval}.`);
  const override = env.LP_POLL_INTERVAL_MS;
  if (override !== undefined && override !== "") intervalMs = parseDuration(override, "LP_POLL_INTERVAL_MS");
  return { wait: flags.wait === true, firstPollMs: Math.min(FIRST_POLL_MS, intervalMs), intervalMs, timeoutMs: parseDuration(flags.timeout ?? "5m", "--timeout") };
}

/** Which asynchronous resource is awaited, and how to describe it. */
interface Waitable<T> {
  label: string;
  poll(onProgress: (resource: T) => void): Promise<T>;
  describe(resource: T): string;
  failure(resource: T): { code: string; message: string } | null;
  hint: string;
}

/**
 * Polls with a spinner (or plain lines off a terminal) and returns the settled resource. Calls
 * `print` with the final resource, or the last one seen on timeout, then throws for failure (exit 1)
 * or timeout (exit 8) so the error line comes last.
 */
async function settle<T>(ctx: Context, target: Waitable<T>, print: (resource: T) => void): Promise<T> {
  const progress = createProgress(ctx.io);
  let resource: T;
  try {
    resource = await target.poll((r) => progress.update(`${target.label}: ${target.describe(r)}`));
  } catch (error) {
    progress.stop();
    const last = (error as { name?: string; last?: T }).name === "WaitTimeoutError" ? (error as { last: T }).last : undefined;
    if (last === undefined) throw error;
    print(last);
    throw new CliError(EXIT.pending, `${target.label} still pending (${target.describe(last)}); ${target.hint}`, { code: "wait_timeout" });
  }
  progress.stop();
  print(resource);
  const failed = target.failure(resource);
  if (failed) throw new CliError(EXIT.error, `${target.label} failed: ${failed.message}`, { code: failed.code });
  return resource;
}

/**
 * Polls once after `firstPollMs` (a job that settles in 50 ms is not waited on for 2 s), then every
 * `intervalMs` until done or `timeoutMs` (counted from the start).
 */
export async function pollWithHead<T>(wait: WaitOptions, pollFrom: (timeoutMs: number) => Promise<T>): Promise<T> {
  const head = Math.min(wait.firstPollMs, wait.timeoutMs);
  if (head > 0) await new Promise((resolve) => setTimeout(resolve, head));
  return pollFrom(Math.max(0, wait.timeoutMs - head));
}

/** Waits for a generation job; see {@link settle}. */
export async function settleJob(ctx: Context, jobId: string, wait: WaitOptions, print: (job: Job) => void): Promise<Job> {
  const client = await ctx.client();
  return settle<Job>(
    ctx,
    {
      label: `Job ${jobId}`,
      poll: (onProgress) => pollWithHead(wait, (timeoutMs) => client.waitForJob(jobId, { intervalMs: wait.intervalMs, timeoutMs, onProgress })),
      describe: (job) => (job.step_detail ? `${job.step} (${job.step_detail})` : job.step),
      failure: (job) => (job.status === "failed" ? (job.error ?? { code: "job_failed", message: "the job failed" }) : null),
      hint: `continue with 'lp jobs get ${jobId} --wait'.`,
    },
    print,
  );
}

/** Waits for a deployment; see {@link settle}. */
export async function settleDeployment(ctx: Context, pageId: string, id: string, wait: WaitOptions, print: (d: Deployment) => void): Promise<Deployment> {
  const client = await ctx.client();
  return settle<Deployment>(
    ctx,
    {
      label: `Deployment ${id}`,
      poll: (onProgress) => pollWithHead(wait, (timeoutMs) => client.waitForDeployment(pageId, id, { intervalMs: wait.intervalMs, timeoutMs, onProgress })),
      describe: (d) => (d.status === "deploying" ? (d.deploy_step ?? "deploying") : d.status),
      failure: (d) =>
        d.status === "failed" ? { code: d.error_code ?? "deployment_failed", message: `${d.error_message ?? "the deployment failed"} (step: ${d.deploy_step ?? "?"})` } : null,
      hint: `continue with 'lp deployments get ${pageId} ${id} --wait'.`,
    },
    print,
  );
}
