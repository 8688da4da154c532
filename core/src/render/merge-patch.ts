/** A JSON Merge Patch for `T`: each key either a new value or `null` to remove it. */
export type MergePatch<T> = { [K in keyof T]?: T[K] | null };

type JsonObject = Record<string, unknown>;

const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Applies a JSON Merge Patch (RFC 7396) and returns a new object; neither argument is changed.
 * `null` removes a key, an object merges recursively, anything else (arrays included) replaces.
 * Removed keys make the result partial even when `T` is not, so callers fill defaults afterwards.
 */
export function applyMergePatch<T extends object>(target: T, patch: MergePatch<T>): Partial<T> {
  return mergeValue(target, patch) as Partial<T>;
}

function mergeValue(target: unknown, patch: unknown): unknown {
  // Per the RFC, a patch that is not an object replaces the target entirely.
  if (!isPlainObject(patch)) return patch;
  const result: JsonObject = {};
  if (isPlainObject(target)) for (const [key, value] of Object.entries(target)) define(result, key, value);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (value !== undefined) define(result, key, mergeValue(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/** Defines an own property: plain assignment of `__proto__` from parsed JSON would change the prototype. */
function define(object: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
