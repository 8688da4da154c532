import { sql, type Expression, type SelectQueryBuilder, type StringReference } from "kysely";
import type { CursorCodec, KeysetPosition } from "./cursor.js";
import type { Page } from "./list-query.js";

/** What a keyset listing asks: the page's size and, after the first page, the position of the last row shown. */
export interface KeysetQuery {
  after?: KeysetPosition;
  limit: number;
}

/** A page of a keyset listing: its items, whether more follow, and the position the next page starts after. */
export interface KeysetPage<T> {
  items: T[];
  hasMore: boolean;
  /** Null at the end, and when no row of the page has a key a page can go on from. */
  next: KeysetPosition | null;
}

/** How a keyset listing walks its query: the sort key, the tiebreak, the direction, and a row's position. */
export interface KeysetOrder<DB, TB extends keyof DB, O> {
  /** A column of the query's tables, or an expression over them (a lowercased title). */
  key: StringReference<DB, TB> | Expression<unknown>;
  /** The column that orders rows of equal keys, in the same direction; null when the key is unique. */
  tiebreak: StringReference<DB, TB> | null;
  descending: boolean;
  /** Where a listing that showed `row` last goes on from; undefined for a row whose key cannot carry a cursor (a damaged one). */
  position: (row: O) => KeysetPosition | undefined;
}

/**
 * Runs one page of a keyset listing: the rows after `page.after` in the order's direction (the key, then the
 * tiebreak), at most `page.limit` of them. One row more than the page is asked for, so whether a next page
 * exists is known without a count. The bound on the key alone comes first so the engine seeks its index to
 * the position; the pair with the tiebreak then passes over the rows of the same key already shown.
 */
export async function selectKeysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  order: KeysetOrder<DB, TB, O>,
  page: KeysetQuery,
): Promise<KeysetPage<O>> {
  const key = typeof order.key === "string" ? sql.ref(order.key) : order.key;
  const tiebreak = order.tiebreak === null ? null : sql.ref(order.tiebreak);
  const direction = order.descending ? "desc" : "asc";
  let ordered = query;
  const after = page.after;
  if (after) ordered = ordered.where(toAfter(key, tiebreak, order.descending, after));
  ordered = ordered.orderBy(key, direction);
  if (tiebreak) ordered = ordered.orderBy(tiebreak, direction);
  const rows = await ordered.limit(page.limit + 1).execute();
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  let next: KeysetPosition | null = null;
  if (hasMore) {
    for (let i = items.length - 1; i >= 0 && next === null; i--) next = order.position(items[i]) ?? null;
  }
  return { items, hasMore, next };
}

/** The `pagination` of an answer: the next page's cursor, bound to the listing as its decoding will be. */
export function toPagination(page: KeysetPage<unknown>, cursors: CursorCodec, binding: unknown): Page<never>["pagination"] {
  return { next_cursor: page.next ? cursors.encode(page.next, binding) : null, has_more: page.hasMore };
}

function toAfter(key: Expression<unknown>, tiebreak: Expression<unknown> | null, descending: boolean, after: KeysetPosition) {
  const { value, id } = after;
  if (tiebreak === null) return descending ? sql<boolean>`${key} < ${value}` : sql<boolean>`${key} > ${value}`;
  return descending
    ? sql<boolean>`${key} <= ${value} and (${key}, ${tiebreak}) < (${value}, ${id})`
    : sql<boolean>`${key} >= ${value} and (${key}, ${tiebreak}) > (${value}, ${id})`;
}
