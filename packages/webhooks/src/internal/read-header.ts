import type { HeadersInput } from "../headers.js";

/**
 * Reads one header by (lower-case) name from any {@link HeadersInput}. Repeated values (Node gives
 * an array for some, `Headers` joins with ", ") are joined with a space, which keeps several
 * `webhook-signature` values parseable as one space-separated list.
 */
export function readHeader(headers: HeadersInput, name: string): string | undefined {
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== name) continue;
    const value = headers[key];
    if (Array.isArray(value)) return value.join(" ");
    if (typeof value === "string") return value;
  }
  return undefined;
}

function isFetchHeaders(headers: HeadersInput): headers is Headers {
  return typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function";
}
