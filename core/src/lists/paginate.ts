import type { IndexEntry } from "./collection-index.js";
import type { IndexListing } from "./index-listing.js";
import type { CursorCodec } from "./cursor.js";
import { toSort, type Page } from "./list-query.js";

/** Everything one listing request needs. */
export interface PaginateOptions<E extends IndexEntry, T> {
  /** A loaded index, or the registry's listing of one being restored (`IndexRegistry.listing`). */
  index: IndexListing<E>;
  codec: CursorCodec;
  sort: string;
  cursor?: string;
  perPage: number;
  /** The filters, as given: the cursor is bound to them. */
  filters: Record<string, unknown>;
  filter?: (entry: E) => boolean;
  /** Turns the page's entries into resources (usually a storage read each). */
  load: (entries: E[]) => Promise<T[]>;
}

/** Runs a keyset-paginated listing over an index. */
export async function paginate<E extends IndexEntry, T>(options: PaginateOptions<E, T>): Promise<Page<T>> {
  const { field, descending } = toSort(options.sort);
  const binding = { sort: options.sort, filters: options.filters };
  const after = options.cursor ? options.codec.decode(options.cursor, binding) : undefined;
  const query = { field: field as keyof E & string, descending, after, limit: options.perPage, filter: options.filter };
  let page = options.index.query(query);
  // An index being restored answers once what it holds can say the page exactly.
  while (!page && options.index.progress) {
    await options.index.progress();
    page = options.index.query(query);
  }
  if (!page) throw new Error("an index listing answered no page and cannot make progress");
  const { items, hasMore } = page;
  const last = items[items.length - 1];
  const next = hasMore && last ? options.codec.encode({ value: last[field] as string | number | null, id: last.id }, binding) : null;
  return { data: await options.load(items), pagination: { next_cursor: next, has_more: hasMore } };
}

/** Compares an ISO timestamp against exclusive bounds given as dates or date-times. */
export function withinBounds(createdAt: string, after?: string, before?: string): boolean {
  const t = Date.parse(createdAt);
  if (after !== undefined && !(t > Date.parse(after))) return false;
  if (before !== undefined && !(t < Date.parse(before))) return false;
  return true;
}
