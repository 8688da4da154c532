import type { ListPage, ListQuery } from "@lp/client";
import type { Context } from "./context.js";
import { toInt } from "./parse.js";

/** `--limit` and `--all` as parsed. */
export interface ListOptions {
  limit?: number;
  all: boolean;
}

/** Parses `--limit` (1 or more) and `--all`. */
export function toListOptions(flags: { limit?: string; all?: boolean }): ListOptions {
  return { limit: toInt(flags.limit, "--limit", 1), all: flags.all === true };
}

/**
 * Fetches items: up to `--limit` (default 20) following cursors as needed, or every item with
 * `--all`. Says on stderr, on a terminal, when more were left behind.
 */
export async function fetchItems<T, Q extends ListQuery>(ctx: Context, list: (query: Q) => Promise<ListPage<T>>, query: Q, options: ListOptions): Promise<T[]> {
  const client = await ctx.client();
  const limit = options.limit ?? (options.all ? Number.POSITIVE_INFINITY : 20);
  const perPage = Math.min(100, Number.isFinite(limit) ? limit : 100);
  const { items, hasMore } = await client.collect(list, { ...query, per_page: perPage }, limit);
  if (hasMore && ctx.io.stderrIsTTY) ctx.io.stderr.write(`Showing ${items.length}; more exist (use --all or --limit).\n`);
  return items;
}
