/**
 * The event types a webhook endpoint can subscribe to (DESIGN §9), in the order the service lists them.
 * Kept here rather than imported from `@lp/contract` (whose entry loads zod) or `@lp/core`, so that
 * `lp listen` and `lp trigger` start without either; a test checks that the lists agree.
 */
export const EVENT_TYPES = [
  "product.created",
  "product.updated",
  "product.deleted",
  "page.created",
  "page.generation_failed",
  "page.updated",
  "page.deleted",
  "deployment.started",
  "deployment.succeeded",
  "deployment.failed",
  "checkout.submitted",
] as const;

/** A subscribable event type. */
export type EventType = (typeof EVENT_TYPES)[number];

/** `*` (alone or in a list) stands for every event type; other names are passed on for the API to judge. */
export function expandEvents(names: string[]): string[] {
  return names.includes("*") ? [...EVENT_TYPES] : names;
}
