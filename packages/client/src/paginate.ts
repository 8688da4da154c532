import type { ListPage, ListQuery } from "./types/common.js";

/**
 * Walks a listing page by page, following `pagination.next_cursor` until `has_more` is false.
 *
 * @example
 * for await (const page of client.paginate((q) => client.products.list(q), { per_page: 100 })) {
 *   for (const product of page.data) console.log(product.title);
 * }
 */
export async function* paginate<T, Q extends ListQuery>(list: (query: Q) => Promise<ListPage<T>>, query: Q = {} as Q): AsyncGenerator<ListPage<T>, void, undefined> {
  let cursor = query.cursor;
  for (;;) {
    const page = await list({ ...query, cursor });
    yield page;
    if (!page.pagination.has_more || !page.pagination.next_cursor) return;
    cursor = page.pagination.next_cursor;
  }
}

/**
 * Collects items across pages, stopping after `limit` items (all of them without one). Returns the
 * items and whether more were left on the server.
 */
export async function collect<T, Q extends ListQuery>(
  list: (query: Q) => Promise<ListPage<T>>,
  query: Q = {} as Q,
  limit = Number.POSITIVE_INFINITY,
): Promise<{ items: T[]; hasMore: boolean }> {
  const items: T[] = [];
  for await (const page of paginate(list, query)) {
    for (const item of page.data) {
      if (items.length >= limit) return { items, hasMore: true };
      items.push(item);
    }
    if (items.length >= limit) return { items, hasMore: page.pagination.has_more };
  }
  return { items, hasMore: false };
}
