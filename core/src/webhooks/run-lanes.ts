/** Runs of one endpoint started at once per slot of its `concurrency_limit`; the rest wait as plain entries. */
export const RUNS_PER_SLOT = 8;

interface Lane<T> {
  width: number;
  workers: number;
  items: T[];
  head: number;
}

/**
 * Per-key lanes of work with a bounded number of runs in progress each: `width(key)` runs at once (each a
 * worker taking the lane's entries in order), the rest wait in the lane as the entries they were handed in.
 * The webhook engine queues its runs here so a burst of deliveries to one endpoint waits as a list of refs,
 * not as a chain of promises and closures per delivery (which outlive a young-generation collection and are
 * copied into the old one). Entries run in the order they were added. Each worker is handed to `track`, so
 * a work tracker sees the lane busy until its last entry has run; `runOne` must not reject.
 */
export function createRunLanes<T>(options: { width: (key: string) => number; runOne: (item: T) => Promise<void>; track: (work: Promise<void>) => void }) {
  const lanes = new Map<string, Lane<T>>();

  async function worker(key: string, lane: Lane<T>): Promise<void> {
    try {
      while (lane.head < lane.items.length) {
        const item = lane.items[lane.head];
        lane.items[lane.head++] = undefined as T;
        // A long lane drops its run entries now and then, rather than shifting the array on every take.
        if (lane.head >= 1024 && lane.head * 2 >= lane.items.length) {
          lane.items = lane.items.slice(lane.head);
          lane.head = 0;
        }
        await options.runOne(item);
      }
    } finally {
      lane.workers -= 1;
      if (lane.workers === 0 && lanes.get(key) === lane) lanes.delete(key);
    }
  }

  return {
    /** Adds `item` to the lane of `key`; it starts at once when the lane has fewer runs in progress than its width. */
    add(key: string, item: T): void {
      let lane = lanes.get(key);
      if (!lane) lanes.set(key, (lane = { width: Math.max(1, options.width(key)), workers: 0, items: [], head: 0 }));
      lane.items.push(item);
      if (lane.workers >= lane.width) return;
      lane.workers += 1;
      options.track(worker(key, lane));
    },
    /** Changes how many runs of `key` may be in progress at once (from the next entry on). */
    setWidth(key: string, width: number): void {
      const lane = lanes.get(key);
      if (lane) lane.width = Math.max(1, width);
    },
  };
}
