/** Response envelopes come from the wire contract, @lp/contract. */
export type { Timestamp, Pagination, ListPage } from "@lp/contract";

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
