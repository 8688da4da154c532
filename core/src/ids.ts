import type { Clock, IdSource } from "./deps.js";

/**
 * Identifier patterns, and the ids lp makes in creation order. An id that does not match its pattern is a 404
 * and never reaches a query.
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

let counter = 0;
let timeMs = -1;
let timeHex = "";

/**
 * An opaque id whose hex sorts in creation order: 12 hex digits of the clock's milliseconds, 6 of a
 * process counter, then `randomBytes` random bytes. Listings sort on (created_at, id), so items made in
 * the same millisecond (always, on a frozen test clock) still come out newest first.
 */
export function toOrderedId(prefix: string, clock: Clock, ids: IdSource, randomBytes = 5): string {
  counter = (counter + 1) % 0x1000000;
  const ms = Math.max(0, clock.now().getTime());
  // Ids made in the same millisecond (a burst of events) share the formatted time.
  if (ms !== timeMs) {
    timeMs = ms;
    timeHex = ms.toString(16).padStart(12, "0").slice(-12);
  }
  const time = timeHex;
  return `${prefix}_${time}${counter.toString(16).padStart(6, "0")}${ids.bytes(randomBytes).toString("hex")}`;
}

/**
 * The id of the delivery of `eventId` to `endpointId`: the hex of both, concatenated (fixed widths, so
 * distinct pairs give distinct ids), in event order. Deterministic, so fanning an event out twice (after
 * a crash) finds the deliveries it made.
 */
export function toDeliveryId(eventId: string, endpointId: string): string {
  const hex = (id: string) => id.slice(id.indexOf("_") + 1);
  return `dlv_${hex(eventId)}${hex(endpointId)}`;
}
