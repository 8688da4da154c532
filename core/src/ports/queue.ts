import PQueue from "p-queue";

/** Background work: page generation, deployments, webhook deliveries. */
export interface JobQueue {
  /** Schedules `task`; its failure is reported to `onError`, never thrown at the caller. */
  add(name: string, task: () => Promise<void>): void;
  /** Resolves when nothing is queued or running. */
  onIdle(): Promise<void>;
  /** Number of tasks queued or running. */
  readonly pending: number;
  /** Names of the tasks queued or running (what a shutdown that runs out of time leaves behind). */
  names(): string[];
}

/** Options of {@link createLocalQueue}. */
export interface LocalQueueOptions {
  concurrency?: number;
  onError?: (name: string, error: unknown) => void;
}

/** A {@link JobQueue} on p-queue, inside this process. */
export function createLocalQueue(options: LocalQueueOptions = {}): JobQueue {
  const queue = new PQueue({ concurrency: options.concurrency ?? 8 });
  const onError = options.onError ?? ((name, error) => console.error(`[lp] background task ${name} failed:`, error));
  // A multiset of names: two tasks may share one.
  const live = new Map<number, string>();
  let next = 0;
  return {
    add(name, task) {
      const id = next++;
      live.set(id, name);
      queue
        .add(task)
        .catch((error: unknown) => onError(name, error))
        .finally(() => live.delete(id));
    },
    onIdle: () => queue.onIdle(),
    get pending() {
      return queue.size + queue.pending;
    },
    names: () => [...live.values()],
  };
}
