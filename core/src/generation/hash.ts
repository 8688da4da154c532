/**
 * FNV-1a, 32 bits. The template generator derives its variations from this so the same product
 * always gets the same page, with no random source to inject.
 */
export function hashString(value: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** An index in `[0, length)`; `salt` lets one hash drive several independent choices. */
export function indexBy(hash: number, length: number, salt = 0): number {
  const mixed = Math.imul(hash ^ Math.imul(salt + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;
  return (mixed >>> 7) % length;
}

/** Picks an item from a non-empty list. */
export function pickBy<T>(items: readonly T[], hash: number, salt = 0): T {
  return items[indexBy(hash, items.length, salt)] as T;
}

/** The list rotated by a hash-derived offset: same items, deterministic order. */
export function rotateBy<T>(items: readonly T[], hash: number, salt = 0): T[] {
  if (items.length === 0) return [];
  const offset = indexBy(hash, items.length, salt);
  return [...items.slice(offset), ...items.slice(0, offset)];
}
