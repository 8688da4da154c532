import type { DeploymentListQuery } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { fetchItems, toListOptions, type ListOptions } from "../../runtime/list.js";
import { printList } from "../../runtime/output.js";
import { compact, toChoice } from "../../runtime/parse.js";
import { deploymentColumns } from "../pages/views.js";

/** Options of `lp deployments list`. */
export interface ListDeploymentsOptions extends ListOptions {
  pageId: string;
  query: DeploymentListQuery;
  json: boolean;
}

/** Turns the parsed flags of `lp deployments list` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): ListDeploymentsOptions {
  const status = toChoice(flags.status, "--status", ["deploying", "succeeded", "failed"] as const);
  return { ...toListOptions(flags), pageId: args[0], query: compact({ status }), json: flags.json === true };
}

/** Runs `lp deployments list`. */
export async function run(opts: ListDeploymentsOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const items = await fetchItems(ctx, (q: DeploymentListQuery) => client.deployments.list(opts.pageId, q), opts.query, opts);
  printList(ctx, items, deploymentColumns, opts.json);
}
