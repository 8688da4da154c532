import { UsageError } from "./errors.js";

/** Commander collector for repeatable options. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** An integer within bounds, or a usage error naming `flag`. */
export function toInt(text: string | undefined, flag: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || n < min || n > max) throw new UsageError(`${flag}: '${text}' must be an integer from ${min} to ${max}.`);
  return n;
}

/** A non-negative number (prices), or a usage error naming `flag`. */
export function toAmount(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < 0) throw new UsageError(`${flag}: '${text}' must be a non-negative number.`);
  return n;
}

/** One of `choices`, or a usage error listing them. */
export function toChoice<const C extends readonly string[]>(text: string | undefined, flag: string, choices: C): C[number] | undefined {
  if (text === undefined) return undefined;
  if (!choices.includes(text)) throw new UsageError(`${flag}: '${text}' must be one of ${choices.join(", ")}.`);
  return text as C[number];
}

/** `a,b, c` → `["a","b","c"]`; repeated flags are concatenated. */
export function toList(values: string | string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const list = (Array.isArray(values) ? values : [values]).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
  return list;
}

/** `key=value` pairs into an object; `flag` names the option in errors. */
export function toPairs(values: string[] | undefined, flag: string, separator = "="): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of values ?? []) {
    const at = entry.indexOf(separator);
    if (at < 1) throw new UsageError(`${flag}: '${entry}' must look like key${separator}value.`);
    out[entry.slice(0, at).trim()] = entry.slice(at + 1);
  }
  return out;
}

/** `null`, `true`, `false` and JSON numbers become those values; anything else stays a string. */
export function toLooseValue(text: string): unknown {
  if (text === "null") return null;
  if (text === "true") return true;
  if (text === "false") return false;
  return text;
}

/** Drops `undefined` members, so that request bodies only carry what was given. */
export function compact<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
