/**
 * What a reader derives from a stored record's text (a parsed pointer, a serialised view), kept per key
 * while the text stays the same. The record is still read on every use, so a write by any process (a
 * shared store) is seen at once: the memo only skips the parsing and the work after it. The check is a
 * string comparison (a pointer comparison when the store hands back the same string, as memory does). At most `max` keys are kept, the oldest forgotten first.
 */
export function createTextMemo<T>(derive: (text: string, key: string) => T, max = 4096) {
  const known = new Map<string, { text: string; value: T }>();
  return {
    get(key: string, text: string): T {
      const hit = known.get(key);
      if (hit !== undefined && hit.text === text) return hit.value;
      const value = derive(text, key);
      if (hit === undefined && known.size >= max) known.delete(known.keys().next().value!);
      known.set(key, { text, value });
      return value;
    },
    /** Forgets everything: what was derived depends on something besides the text that has changed. */
    clear() {
      known.clear();
    },
    get size() {
      return known.size;
    },
  };
}

/** A {@link createTextMemo}. */
export type TextMemo<T> = ReturnType<typeof createTextMemo<T>>;
