import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { CliError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { info, printItem } from "../../runtime/output.js";
import { settleDeployment, toWaitOptions, type WaitOptions } from "../../runtime/wait.js";
import { deploymentFields } from "./views.js";

/** Options of `lp pages deploy`. */
export interface DeployOptions {
  pageId: string;
  simulate?: string;
  idempotencyKey?: string;
  wait: WaitOptions;
  json: boolean;
}

/** Turns the parsed flags of `lp pages deploy` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput, ctx: Pick<Context, "io">): DeployOptions {
  return { pageId: args[0], simulate: flags.simulate, idempotencyKey: flags.idempotencyKey, wait: toWaitOptions(flags, ctx.io.env), json: flags.json === true };
}

/** Runs `lp pages deploy`. */
export async function run(opts: DeployOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const headers: Record<string, string> = opts.simulate ? { "lp-simulate": opts.simulate } : {};
  const accepted = await client.deployments.create(opts.pageId, { headers, idempotencyKey: opts.idempotencyKey }).catch((error: unknown) => {
    throw toInProgressError(error, opts.pageId, client.baseUrl);
  });
  if (!opts.wait.wait) {
    printItem(ctx, accepted, [["deployment_id", (a) => a.deployment_id], ["poll_url", (a) => a.poll_url]], opts.json);
    if (ctx.io.stderrIsTTY) info(ctx, `Deploying. Follow it with: lp deployments get ${opts.pageId} ${accepted.deployment_id} --wait`);
    return;
  }
  const deployment = await settleDeployment(ctx, opts.pageId, accepted.deployment_id, opts.wait, (d) => printItem(ctx, d, deploymentFields, opts.json));
  if (!opts.json && deployment.deployed_url) info(ctx, `Live at ${deployment.deployed_url}`);
}

/** A 409 `deployment_in_progress` says which deployment is in flight and how to follow it; others pass through. */
function toInProgressError(error: unknown, pageId: string, baseUrl: string): unknown {
  const e = error as { name?: string; code?: string; details?: Record<string, unknown>; requestId?: string; message?: string };
  if (e.name !== "ApiError" || e.code !== "deployment_in_progress") return error;
  const active = typeof e.details?.active_deployment_id === "string" ? e.details.active_deployment_id : undefined;
  if (!active) return error;
  const path = typeof e.details?.poll_url === "string" ? e.details.poll_url : undefined;
  const poll = path?.startsWith("/") ? `${baseUrl.replace(/\/+$/, "")}${path}` : path;
  const message = `A deployment of this page is already in flight: ${active}${poll ? ` (poll ${poll})` : ""}. Follow it with: lp deployments get ${pageId} ${active} --wait`;
  return new CliError(EXIT.error, message, { code: e.code, requestId: e.requestId });
}
