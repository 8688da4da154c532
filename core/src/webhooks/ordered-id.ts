import type { Clock, IdSource } from "../deps.js";

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
