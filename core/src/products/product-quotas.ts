import { LpError } from "../errors.js";
import type { AccountRecord } from "../accounts/schemas.js";
import type { CollectionIndex } from "../lists/collection-index.js";
import type { ProductEntry } from "./product-view.js";

/** Which per-account quota a refusal names in `details.quota`. */
export type ProductQuotaName = "products" | "media_bytes";

/** A 403 `quota_exceeded` naming the quota, its limit and what is used. */
export function quotaExceeded(quota: ProductQuotaName, limit: number, used: number, requested: number): LpError {
  const message =
    quota === "products"
      ? `The account's product quota of ${limit} is reached; delete a product first.`
      : `The account's media quota of ${limit} bytes would be passed (${used} used, ${requested} more asked); delete products or images first.`;
  return new LpError("quota_exceeded", message, { quota, limit, used, ...(quota === "media_bytes" ? { requested } : {}) });
}

/** Bytes of uploaded images the products of an index hold (soft-deleted products are not in it). */
export function mediaBytesUsed(index: CollectionIndex<ProductEntry>): number {
  let used = 0;
  for (const entry of index.values()) used += entry.media_bytes;
  return used;
}

/** What an account's products take of its quotas, as one read saw them. */
export interface ProductUsage {
  /** Live products. */
  products: number;
  /** Bytes of the live products' uploaded images (worked out when asked). */
  bytes(): number;
  /** The claimed product as the read saw it (its index entry, or its stored text; absent: undefined or null). */
  claimed: unknown;
  /** For each pending write asked about, whether the read shows it: its product is no longer as it was (`before`). */
  landed: boolean[];
}

/** A write under way, whose share counts until it has landed: its product, and that product's state when the share was taken. */
export interface PendingWrite {
  id: string;
  before: unknown;
}

/** What the quota check asks of a store, in one synchronous step with the check (one read, on SQLite). */
export type UsageReader = (claimId: string, pending: readonly PendingWrite[]) => ProductUsage;

/**
 * The {@link quotaExceeded} refusal when `products` more products or `bytes` more bytes of uploads would pass
 * the account's quotas, counting the products and bytes `usage` saw and the shares `reserved` by writes it
 * did not see yet; null when they fit.
 */
export function productRoomRefusal(
  account: Pick<AccountRecord, "product_quota" | "media_quota_bytes">,
  usage: Pick<ProductUsage, "products" | "bytes">,
  products: number,
  bytes: number,
  reserved: { products: number; bytes: number } = { products: 0, bytes: 0 },
): LpError | null {
  const count = usage.products + reserved.products;
  if (products > 0 && count + products > account.product_quota) return quotaExceeded("products", account.product_quota, count, products);
  if (bytes > 0) {
    const used = usage.bytes() + reserved.bytes;
    if (used + bytes > account.media_quota_bytes) return quotaExceeded("media_bytes", account.media_quota_bytes, used, bytes);
  }
  return null;
}

/**
 * Throws {@link productRoomRefusal}'s refusal. `product-room.ts` calls it in the same step as recording the
 * share it grants (in one synchronous step in one process, under the account's lock on a shared store), so
 * two requests never both take the last share.
 */
export function assertProductRoom(...args: Parameters<typeof productRoomRefusal>): void {
  const refusal = productRoomRefusal(...args);
  if (refusal) throw refusal;
}
