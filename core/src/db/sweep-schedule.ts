import type { Scheduler } from "../webhooks/scheduler.js";

/** The first sweep comes this long after the start, then one every {@link SWEEP_EVERY_MS}. */
const FIRST_SWEEP_MS = 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

/** Rows of one table that are gone once their time is over, and the statement that removes them. */
export interface Sweep {
  /** What a removed row is, for the log (`expired Idempotency-Key record`). */
  what: string;
  /** Deletes the rows over by now; answers how many. */
  sweep(): Promise<number>;
  /** Say how many were removed (default true); failures are always said. */
  report?: boolean;
}

/**
 * Runs `sweeps` a minute after the start, then every hour (unreferenced timers, one round at a time, each
 * sweep one statement, a failed one tried again at the next round), so a server that runs for months keeps
 * only the rows still in use: about a day of Idempotency-Key records, the rate windows of the last hour. `stop`
 * ends the timers and waits for the round under way.
 */
export function startSweeps(sweeps: readonly Sweep[], log: (line: string) => void, scheduler?: Scheduler) {
  let stopped = false;
  let running: Promise<void> | null = null;
  const one = (s: Sweep) =>
    s.sweep().then(
      (removed) => void (removed > 0 && s.report !== false && log(`[lp] removed ${removed} ${s.what}${removed === 1 ? "" : "s"}`)),
      (error: unknown) => log(`[lp] removing ${s.what}s failed (tried again in an hour): ${error instanceof Error ? error.message : String(error)}`),
    );
  const run = () => {
    if (running || stopped) return;
    running = (async () => {
      for (const s of sweeps) await one(s);
    })().finally(() => (running = null));
  };
  // On a manual clock the sweeps come as its time passes: a minute after the start, then every hour of it.
  if (scheduler) {
    let next = scheduler.setTimeout(function tick() {
      run();
      if (!stopped) next = scheduler.setTimeout(tick, SWEEP_EVERY_MS);
    }, FIRST_SWEEP_MS);
    return {
      async stop() {
        stopped = true;
        next.cancel();
        await running;
      },
      /** Resolves once the round under way (if any) is done: an advance of the clock answers after it. */
      idle: async () => void (await running),
    };
  }
  const first = setTimeout(run, FIRST_SWEEP_MS);
  const hourly = setInterval(run, SWEEP_EVERY_MS);
  first.unref();
  hourly.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(hourly);
      await running;
    },
    idle: async () => void (await running),
  };
}
