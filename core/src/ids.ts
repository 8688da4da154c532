/**
 * Identifier patterns. An id that does not match its pattern is a 404 and never reaches a storage key,
 * which is what keeps odd keys out of every storage driver.
 */
export const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PREFIXED = /^[a-z]{2,4}_[0-9a-f]{16,64}$/;

/** True when `id` is a syntactically valid account id. */
export function isAccountId(id: unknown): id is string {
  return typeof id === "string" && ACCOUNT_ID.test(id);
}

/** True for a lower-case UUID v4. */
export function isUuid(id: unknown): id is string {
  return typeof id === "string" && UUID_V4.test(id);
}

/** True for an opaque id carrying `prefix`, e.g. `isPrefixedId("we_ab12...", "we")`. */
export function isPrefixedId(id: unknown, prefix: string): id is string {
  return typeof id === "string" && id.startsWith(`${prefix}_`) && PREFIXED.test(id);
}
