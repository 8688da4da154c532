/** Counts background promises so callers can wait until none is left (tests, shutdown). */
export interface WorkTracker {
  track(work: Promise<unknown>): void;
  /** Resolves once nothing tracked is running, including work started by work that just finished. */
  onIdle(): Promise<void>;
  readonly active: number;
}

/** Creates a {@link WorkTracker}. Tracked failures are the tracker's caller's business: they are swallowed here. */
export function createWorkTracker(): WorkTracker {
  let active = 0;
  let waiters: (() => void)[] = [];
  const idle = () => {
    if (active > 0) return;
    const done = waiters;
    waiters = [];
    for (const resolve of done) resolve();
  };
  // One handler for success and failure alike, shared by every tracked promise (each delivery tracks some).
  const finished = () => {
    active -= 1;
    // Let continuations of the finished work start their follow-ups before declaring idle.
    if (active === 0) setImmediate(idle);
  };
  return {
    track(work) {
      active += 1;
      work.then(finished, finished);
    },
    onIdle() {
      if (active === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
    get active() {
      return active;
    },
  };
}
