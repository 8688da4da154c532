import type { ProductListQuery } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { fetchItems, toListOptions, type ListOptions } from "../../runtime/list.js";
import { printList } from "../../runtime/output.js";
import { compact, toChoice } from "../../runtime/parse.js";
import { productColumns } from "./views.js";

/** Options of `lp products list`. */
export interface ListProductsOptions extends ListOptions {
  query: ProductListQuery;
  json: boolean;
}

/** Turns the parsed flags of `lp products list` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ListProductsOptions {
  return {
    ...toListOptions(flags),
    query: compact({
      product_type: toChoice(flags.type, "--type", ["physical", "service"] as const),
      q: flags.query,
      created_after: flags.createdAfter,
      created_before: flags.createdBefore,
      sort: flags.sort,
    }) as ProductListQuery,
    json: flags.json === true,
  };
}

/** Runs `lp products list`. */
export async function run(opts: ListProductsOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const items = await fetchItems(ctx, (q: ProductListQuery) => client.products.list(q), opts.query, opts);
  printList(ctx, items, productColumns, opts.json);
}
