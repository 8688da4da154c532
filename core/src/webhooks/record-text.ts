import type { EventRecord } from "./records.js";

/**
 * The JSON text of each event object, made once: the same text is the body of every attempt of its deliveries
 * claimed together (the exact bytes signed and sent), so none of them serialises it again.
 */
const eventTexts = new WeakMap<object, string>();

/** The JSON text of `event`, as sent. */
export function eventText(event: EventRecord): string {
  let text = eventTexts.get(event);
  if (text === undefined) eventTexts.set(event, (text = JSON.stringify(event)));
  return text;
}
