import { EVENT_TYPES } from "@lp/contract/events";

/**
 * The event types a webhook endpoint can subscribe to (DESIGN §9), from the contract's zod-free `events`
 * entry: `lp listen` and `lp trigger` start without loading zod or `@lp/core`.
 */
export { EVENT_TYPES, type EventType } from "@lp/contract/events";

/** `*` (alone or in a list) stands for every event type; other names are passed on for the API to judge. */
export function expandEvents(names: string[]): string[] {
  return names.includes("*") ? [...EVENT_TYPES] : names;
}
