/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-22T02:24:58.123Z`. */
export type Timestamp = string;

/** The `pagination` member of every list body. */
export interface Pagination {
  /** Opaque cursor of the next page; null on the last one. */
  next_cursor: string | null;
  has_more: boolean;
}

/** One page of a listing: `{ data, pagination }`. */
export interface ListPage<T> {
  data: T[];
  pagination: Pagination;
}

/** Query parameters every listing takes. */
export interface ListQuery {
  /** Cursor from the previous page's `pagination.next_cursor`. */
  cursor?: string;
  /** 1 to 100; the server's default is 20. */
  per_page?: number;
}

/** `created_after` / `created_before`: ISO 8601 date or date-time, exclusive bounds. */
export interface CreatedRange {
  created_after?: string;
  created_before?: string;
}

/** A sort field, ascending, or descending with a leading `-`. */
export type SortOf<F extends string> = F | `-${F}`;
