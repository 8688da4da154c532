import type { ListQuery } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { fetchItems, toListOptions, type ListOptions } from "../../runtime/list.js";
import { printList } from "../../runtime/output.js";
import { endpointColumns } from "./views.js";

/** Options of `lp webhooks list`. */
export interface ListEndpointsOptions extends ListOptions {
  json: boolean;
}

/** Turns the parsed flags of `lp webhooks list` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ListEndpointsOptions {
  return { ...toListOptions(flags), json: flags.json === true };
}

/** Runs `lp webhooks list`. */
export async function run(opts: ListEndpointsOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  // The spec gives this listing no query parameters: only a cursor from a previous answer is passed on.
  const items = await fetchItems(ctx, (q: ListQuery) => client.webhooks.list(q.cursor ? { cursor: q.cursor } : {}), {}, opts);
  printList(ctx, items, endpointColumns, opts.json);
}
