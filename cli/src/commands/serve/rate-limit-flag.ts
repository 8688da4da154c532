import { UsageError } from "../../runtime/errors.js";

const UNITS: Record<string, number> = { s: 1000, sec: 1000, second: 1000, m: 60_000, min: 60_000, minute: 60_000, h: 3_600_000, hour: 3_600_000 };

/**
 * `--checkout-rate-limit`: `N/s`, `N/min` or `N/h` (requests per client address), or `off` (also `0`).
 * Undefined when the flag is absent, so the server's default applies (30/min with `--public`).
 */
export function toRateLimit(text: string | undefined, flag: string): { count: number; windowMs: number } | null | undefined {
  if (text === undefined) return undefined;
  const value = text.trim().toLowerCase();
  if (value === "off" || value === "0") return null;
  const match = /^(\d{1,7})\s*\/\s*([a-z]+)$/.exec(value);
  const windowMs = match ? UNITS[match[2]!] : undefined;
  if (!match || !windowMs || Number(match[1]) < 1) throw new UsageError(`${flag}: '${text}' must look like 30/min, 5/s or 500/h, or be off.`);
  return { count: Number(match[1]), windowMs };
}
