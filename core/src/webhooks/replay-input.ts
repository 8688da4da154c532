import { z } from "zod";
import { durationText, toDurationMs } from "../time/schemas.js";
import { EVENT_TYPES } from "./catalogue.js";
import type { ReplayWindow } from "./event-replay.js";

/** A bound of a replay window: a time, or a duration before now by the server's clock (`10m`). */
const bound = z.union([z.iso.datetime({ offset: true }), durationText]);

/** Body of `POST /_admin/webhook-endpoints/{id}/replay`. */
export const replayInputSchema = z.strictObject({
  since: bound.optional().describe("Oldest event to send: a time, or a duration before now (10m); default the oldest kept"),
  until: bound.optional().describe("Newest event to send, likewise; default now"),
  event_types: z
    .array(z.enum(EVENT_TYPES))
    .max(EVENT_TYPES.length)
    .optional()
    .describe("Only these types (of those the endpoint subscribes to); default all it subscribes to"),
});

export type ReplayInput = z.output<typeof replayInputSchema>;

/** The window a replay body asks for, its durations counted back from `now`. */
export function toReplayWindow(input: ReplayInput, now: Date): ReplayWindow {
  const at = (value: string | undefined) => (value === undefined ? undefined : durationText.safeParse(value).success ? now.getTime() - toDurationMs(value) : Date.parse(value));
  return { since: at(input.since), until: at(input.until), eventTypes: input.event_types };
}
