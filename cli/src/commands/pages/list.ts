import type { PageListQuery } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { fetchItems, toListOptions, type ListOptions } from "../../runtime/list.js";
import { printList } from "../../runtime/output.js";
import { compact } from "../../runtime/parse.js";
import { pageColumns } from "./views.js";

/** Options of `lp pages list`. */
export interface ListPagesOptions extends ListOptions {
  query: PageListQuery;
  json: boolean;
}

/** Turns the parsed flags of `lp pages list` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ListPagesOptions {
  return {
    ...toListOptions(flags),
    query: compact({
      status: flags.status,
      product_id: flags.productId,
      q: flags.query,
      created_after: flags.createdAfter,
      created_before: flags.createdBefore,
      sort: flags.sort,
    }) as PageListQuery,
    json: flags.json === true,
  };
}

/** Runs `lp pages list`. */
export async function run(opts: ListPagesOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printList(ctx, await fetchItems(ctx, (q: PageListQuery) => client.pages.list(q), opts.query, opts), pageColumns, opts.json);
}
