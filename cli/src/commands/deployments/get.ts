import type { Deployment } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { printItem } from "../../runtime/output.js";
import { settleDeployment, toWaitOptions, type WaitOptions } from "../../runtime/wait.js";
import { deploymentFields } from "../pages/views.js";

/** Options of `lp deployments get`. */
export interface GetDeploymentOptions {
  pageId: string;
  id: string;
  wait: WaitOptions;
  json: boolean;
}

/** Turns the parsed flags of `lp deployments get` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput, ctx: Pick<Context, "io">): GetDeploymentOptions {
  return { pageId: args[0], id: args[1], wait: { ...toWaitOptions(flags, ctx.io.env), firstPollMs: 0 }, json: flags.json === true };
}

/** Runs `lp deployments get`. */
export async function run(opts: GetDeploymentOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const print = (d: Deployment) => printItem(ctx, d, deploymentFields, opts.json);
  if (opts.wait.wait) await settleDeployment(ctx, opts.pageId, opts.id, opts.wait, print);
  else print(await client.deployments.get(opts.pageId, opts.id));
}
