import { UsageError } from "./errors.js";

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses `250ms`, `2s`, `1.5m`, `2h` or a bare number of milliseconds (`0`, `1500`) into milliseconds.
 * `flag` names the option in the usage error.
 */
export function parseDuration(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match) throw new UsageError(`${flag}: '${text}' is not a duration; use e.g. 500ms, 2s, 5m or 1h.`);
  return Math.round(Number(match[1]) * UNITS[match[2] ?? "ms"]);
}

/** Parses a comma-separated list of durations: `0,1s,2s`. */
export function parseDurationList(text: string, flag: string): number[] {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.some((p) => p === "")) throw new UsageError(`${flag}: '${text}' has an empty entry; use e.g. 0,1s,2s.`);
  return parts.map((p) => parseDuration(p, flag));
}

/** `2000` → `2s`, `90000` → `1m30s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  return s % 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s / 60}m`;
}
