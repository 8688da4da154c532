import type { BatchFence } from "../storage/create-storage.js";

/**
 * What a holder of a {@link Lock} is handed while `fn` runs. On the local lock the lease never ends; on a
 * shared lock (Redis) it is a lease renewed while `fn` runs, and it can be lost when renewal fails for longer
 * than the lease (Redis unreachable, the event loop stalled).
 */
export interface LockLease {
  /**
   * Fencing token: strictly greater than the token of every earlier grant of the same key (of any key, on
   * Redis), so a store that remembers the last token it accepted can refuse a late write of an older holder.
   */
  readonly token: number;
  /** Aborted when the lease is lost; its reason is the `service_unavailable` error {@link assertHeld} throws. */
  readonly signal: AbortSignal;
  /** On a shared lock: what a store needs to refuse a batch once this lease has ended (Stores.batch). */
  readonly fence?: BatchFence;
  /**
   * Resolves while the lease is still held; throws `service_unavailable` when it is not. A holder calls it
   * right before the write that commits its decision (see docs/scale-out.md for what this guarantees).
   */
  assertHeld(): Promise<void>;
}

/** Mutual exclusion per key. The local implementation serialises callers inside one process. */
export interface Lock {
  /** Runs `fn` once no other holder of `key` is running, and releases the key when it settles. */
  withLock<T>(key: string, fn: (lease: LockLease) => Promise<T> | T): Promise<T>;
  /** Stops renewals and closes connections (shared locks only). */
  close?(): Promise<void>;
}

const neverAborted = new AbortController().signal;
const alwaysHeld = async (): Promise<void> => {};

/** An in-process {@link Lock}: a promise chain per key, dropped when the chain empties. */
export function createLocalLock(): Lock {
  const tails = new Map<string, Promise<unknown>>();
  let grants = 0;
  return {
    async withLock(key, fn) {
      const previous = tails.get(key);
      let release!: () => void;
      const current = new Promise<void>((resolve) => {
        release = resolve;
      });
      // A free key (the usual case) is taken at once: no wait, and the holder's own promise is the tail.
      const tail = previous ? previous.then(() => current) : current;
      tails.set(key, tail);
      if (previous) await previous;
      try {
        // One process: nothing can take the key away, so the lease never ends.
        return await fn({ token: ++grants, signal: neverAborted, assertHeld: alwaysHeld });
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
  };
}
