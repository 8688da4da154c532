const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;

/**
 * `key` when every segment is plain (letters, digits, `_ . -`, not starting with a dot, none empty), else a
 * throw: the one rule of every storage kind, so a key is valid on all of them or on none, and a key lp did
 * not mean (`a::b`, `a:..:b`) is a bug to surface rather than a row or a Redis key to write.
 */
export function checkKey(key: string): string {
  if (key.length > 1024 || !key.split(":").every((part) => SEGMENT.test(part))) {
    throw new Error(`Unsafe storage key: ${JSON.stringify(key.slice(0, 200))}`);
  }
  return key;
}

/** The collection of a key: everything before its last `:` ("" at the root). */
export const parentOf = (key: string): string => key.slice(0, Math.max(0, key.lastIndexOf(":")));

/** The text a value is stored as, as unstorage's own `setItem` makes it. */
export function toStoredText(value: unknown): string {
  if (value === null || ["string", "number", "boolean", "bigint"].includes(typeof value)) return String(value);
  return JSON.stringify(value);
}
