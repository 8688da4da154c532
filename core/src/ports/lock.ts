/** Mutual exclusion per key. The local implementation serialises callers inside one process. */
export interface Lock {
  /** Runs `fn` once no other holder of `key` is running, and releases the key when it settles. */
  withLock<T>(key: string, fn: () => Promise<T> | T): Promise<T>;
}

/** An in-process {@link Lock}: a promise chain per key, dropped when the chain empties. */
export function createLocalLock(): Lock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    async withLock(key, fn) {
      const previous = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const current = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = previous.then(() => current);
      tails.set(key, tail);
      await previous;
      try {
        return await fn();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}
