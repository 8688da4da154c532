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

/**
 * The JSON text of a delivery record: its own fields serialised, with its payload's text (from
 * {@link eventText}) set in after them rather than serialised once more. Parsed, it is the record.
 */
export function deliveryText(d: DeliveryRecord): string {
  const { payload, ...fields } = d;
  const head = JSON.stringify(fields);
  return `${head.slice(0, -1)},"payload":${eventText(payload)}}`;
}
