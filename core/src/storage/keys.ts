const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;

/**
 * `key` when every segment is plain (letters, digits, `_ . -`, not starting with a dot, none empty), else a
 * throw: the rule format 1 and format 2 named their records by, so a key lp did not mean (`a::b`, `a:..:b`)
 * in an old data dir is surfaced rather than migrated.
 */
export function checkKey(key: string): string {
  if (key.length > 1024 || !key.split(":").every((part) => SEGMENT.test(part))) {
    throw new Error(`Unsafe storage key: ${JSON.stringify(key.slice(0, 200))}`);
  }
  return key;
}

/** The collection of a key: everything before its last `:` ("" at the root). */
export const parentOf = (key: string): string => key.slice(0, Math.max(0, key.lastIndexOf(":")));
