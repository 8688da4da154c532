import type { BatchOp } from "../storage/create-storage.js";

/** Options of {@link createGroupCommit}. */
export interface GroupCommitOptions {
  /** Writes one group durably (on SQLite one transaction, `Stores.batch`); rejects if any of it failed. */
  write: (ops: readonly BatchOp[]) => Promise<void>;
  /** Waits before a group starts, so work finishing in the same turn of the event loop joins it. */
  gather?: () => Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Group commit of the delivery records: the writes handed in while a group is being written (attempts that
 * finish together, the deliveries of one fan-out) are written next, together, in one `write`. One group is
 * written at a time, each caller's ops in the order they were handed in (a chain of their own, so a store may
 * apply two callers' ops side by side). A
 * caller's promise resolves only once its whole group is durable, and rejects, for every caller of the
 * group, when the group's write fails: nothing is reported stored that might not be.
 */
export function createGroupCommit(options: GroupCommitOptions) {
  const gather = options.gather ?? nextTurn;
  let ops: BatchOp[] = [];
  let waiters: Waiter[] = [];
  let running: Promise<void> | null = null;

  async function drain(): Promise<void> {
    await gather();
    while (waiters.length > 0) {
      const group = ops;
      const told = waiters;
      ops = [];
      waiters = [];
      try {
        await options.write(group);
        for (const waiter of told) waiter.resolve();
      } catch (error) {
        for (const waiter of told) waiter.reject(error);
      }
    }
    running = null;
  }

  return {
    /**
     * Writes `add` with the next group; resolves when that group is durable. The ops are the group's from
     * then on (each is tagged with its chain in place, not copied): hand in fresh ones.
     */
    commit(add: BatchOp[]): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        // Each caller's ops are a chain of their own: only their order within it matters.
        const chain = waiters.length;
        for (const op of add) {
          op.chain = chain;
          ops.push(op);
        }
        waiters.push({ resolve, reject });
        running ??= drain();
      });
    },
    /** Resolves once every group handed in so far is written (or failed). */
    async flush(): Promise<void> {
      while (running) await running;
    },
  };
}

export type GroupCommit = ReturnType<typeof createGroupCommit>;
