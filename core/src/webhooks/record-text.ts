import type { DeliveryRecord, EventRecord } from "./records.js";

/**
 * The JSON text of each event object, made once: the same text is the event's outbox entry, the body of
 * every attempt of its deliveries (the exact bytes signed and sent) and the payload inside each stored
 * delivery record. Every delivery and save of an event keeps the same payload object (a save spreads the
 * record), so none of them serialises it again.
 */
const eventTexts = new WeakMap<object, string>();

/** The JSON text of `event`, as sent and as stored. */
export function eventText(event: EventRecord): string {
  let text = eventTexts.get(event);
  if (text === undefined) eventTexts.set(event, (text = JSON.stringify(event)));
  return text;
}

/** What a record's payload is serialised as before its text is set in: a top-level key no other field can spell unescaped. */
const PAYLOAD_MARK = '"payload":0';

/**
 * The JSON text of a delivery record, its fields in their order, with its payload's text (from
 * {@link eventText}) set in where the payload goes rather than serialised once more. Parsed, it is the record.
 */
export function deliveryText(d: DeliveryRecord): string {
  // A spread copy with the payload swapped for 0 (an object rest copy takes a slow path in V8).
  const head = JSON.stringify({ ...d, payload: 0 });
  // Quotes inside string values are escaped, so the only unescaped `"payload":0` is the record's own key.
  const at = head.lastIndexOf(PAYLOAD_MARK);
  return `${head.slice(0, at)}"payload":${eventText(d.payload)}${head.slice(at + PAYLOAD_MARK.length)}`;
}
