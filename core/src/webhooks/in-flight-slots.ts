/**
 * A counting semaphore: at most `limit` callers of `run` at once, the rest wait in arrival order. The
 * engine's bound across endpoints; lighter than a second p-queue per attempt (no events, no priorities),
 * since every attempt passes through it.
 */
export function createInFlightSlots(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> | undefined => {
    if (active < limit) {
      active += 1;
      return undefined;
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    // The slot passes straight to the next waiter, so `active` stays the same.
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return {
    /** Runs `fn` in a slot, waiting for one first when all are taken; the slot is freed when it settles. */
    async run<T>(fn: () => Promise<T>): Promise<T> {
      const wait = acquire();
      if (wait) await wait;
      try {
        return await fn();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
  };
}
