import { EVENT_TYPES, type EventType } from "@lp/contract";

/** The event catalogue (DESIGN §9) is part of the wire contract: it lives in @lp/contract. */
export { EVENT_TYPES, INTERNAL_EVENT_TYPES, ALL_EVENT_TYPES, EVENT_DESCRIPTIONS, type EventType } from "@lp/contract";

const subscribable = new Set<string>(EVENT_TYPES);

/** True for a name partners may subscribe to. */
export function isEventType(name: unknown): name is EventType {
  return typeof name === "string" && subscribable.has(name);
}
