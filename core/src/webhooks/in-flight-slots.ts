/**
 * A counting semaphore: at most `limit` callers of `run` at once, the rest wait in arrival order. The
 * engine's bound across endpoints, and each endpoint's `concurrency_limit` in one process; lighter than a
 * p-queue (no events, no priorities), since every attempt passes through both.
 */
export function createInFlightSlots(initialLimit: number) {
  let limit = initialLimit;
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
    // The slot passes straight to the next waiter, so `active` stays the same, unless the limit shrank.
    const next = active <= limit ? waiting.shift() : undefined;
    if (next) next();
    else active -= 1;
  };
  // Plain promise handlers rather than an async function: every attempt passes through two of these.
  const inSlot = <T>(fn: () => Promise<T>): Promise<T> => {
    let running: Promise<T>;
    try {
      running = fn();
    } catch (error) {
      release();
      return Promise.reject(error);
    }
    return running.then(
      (value) => {
        release();
        return value;
      },
      (error: unknown) => {
        release();
        throw error;
      },
    );
  };
  return {
    /**
     * Takes a slot: at once (undefined) when one is free, else the promise resolves once a slot is handed
     * over. Each taken slot is given back with {@link release}. For callers that hold it across awaits of
     * their own, with no closure per call.
     */
    acquire,
    release,
    /** Runs `fn` in a slot, waiting for one first when all are taken; the slot is freed when it settles. */
    run<T>(fn: () => Promise<T>): Promise<T> {
      const wait = acquire();
      return wait ? wait.then(() => inSlot(fn)) : inSlot(fn);
    },
    /** Changes the limit; a higher one lets waiters in at once, a lower one takes effect as slots free. */
    setLimit(next: number): void {
      limit = next;
      while (active < limit && waiting.length > 0) {
        active += 1;
        waiting.shift()!();
      }
    },
    get active() {
      return active;
    },
  };
}

export type InFlightSlots = ReturnType<typeof createInFlightSlots>;
