import { LpError } from "../errors.js";
import type { AccountRecord } from "../accounts/schemas.js";

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

/** What an account's products take of its quotas, as one read saw them. */
export interface ProductUsage {
  /** Live products. */
  products: number;
  /** Bytes of the live products' uploaded images (worked out when asked). */
  bytes(): number;
}

/**
 * The {@link quotaExceeded} refusal when `products` more products or `bytes` more bytes of uploads would pass
 * the account's quotas, counting the products and bytes `usage` saw; null when they fit.
 */
export function productRoomRefusal(
  account: Pick<AccountRecord, "product_quota" | "media_quota_bytes">,
  usage: ProductUsage,
  products: number,
  bytes: number,
): LpError | null {
  if (products > 0 && usage.products + products > account.product_quota) return quotaExceeded("products", account.product_quota, usage.products, products);
  if (bytes > 0) {
    const used = usage.bytes();
    if (used + bytes > account.media_quota_bytes) return quotaExceeded("media_bytes", account.media_quota_bytes, used, bytes);
  }
  return null;
}
