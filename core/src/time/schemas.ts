import { z } from "zod";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as text: a whole number and a unit, `500ms`, `30s`, `5m`, `2h`, `7d`. */
export const durationText = z
  .string()
  .max(16, { abort: true })
  .regex(/^\d{1,12}(ms|s|m|h|d)$/, "a whole number and a unit: ms, s, m, h or d (e.g. 5m)");

/** Milliseconds of a {@link durationText}. */
export function toDurationMs(text: string): number {
  const unit = text.endsWith("ms") ? "ms" : text.slice(-1);
  return Number(text.slice(0, -unit.length)) * UNITS[unit];
}

/** Body of `POST /_admin/clock`: move forward by a duration, or to a later time. */
export const clockMoveSchema = z.union([
  z.strictObject({ advance: durationText.describe("how far to move the clock forward, e.g. 5m") }),
  z.strictObject({ to: z.iso.datetime({ offset: true }).describe("the time to move the clock to; never earlier than now") }),
]);

export type ClockMove = z.output<typeof clockMoveSchema>;
