/**
 * The text of recently read or written records, for a driver whose process is the only writer of its
 * folder (`lp serve` holds the data-dir lock). A hit skips the open, stat, read and close of the record
 * file. Bounded by the total length of the cached strings: when a new one would pass the budget, the
 * cache starts over, which costs only re-reads.
 */
export function createReadCache(budget = 16 * 1024 * 1024, largest = 64 * 1024) {
  const texts = new Map<string, string>();
  let size = 0;
  return {
    /**
     * Counts changes. A reader notes it before reading the file and caches what it read only when it has
     * not moved, so a write that lands while a read is under way is never overwritten by the older text.
     */
    changes: 0,
    get: (key: string): string | undefined => texts.get(key),
    /** Remembers `text` as the current value of `key` (texts larger than `largest` are only forgotten). */
    set(key: string, text: string): void {
      this.delete(key);
      if (text.length > largest) return;
      if (size + text.length > budget) this.clear();
      texts.set(key, text);
      size += text.length;
    },
    delete(key: string): void {
      this.changes++;
      const old = texts.get(key);
      if (old === undefined) return;
      texts.delete(key);
      size -= old.length;
    },
    /** Forgets every key under `prefix` (`a:b` covers `a:b` and `a:b:...`), or everything. */
    clearPrefix(prefix: string): void {
      if (!prefix) return this.clear();
      for (const key of [...texts.keys()]) if (key === prefix || key.startsWith(`${prefix}:`)) this.delete(key);
    },
    clear(): void {
      this.changes++;
      texts.clear();
      size = 0;
    },
  };
}
