import type { Scheduler } from "../webhooks/scheduler.js";

/** The first sweep of expired Idempotency-Key records comes this long after the start, then one every {@link SWEEP_EVERY_MS}. */
const FIRST_SWEEP_MS = 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

/**
 * Removes expired Idempotency-Key records a minute after the start, then every hour (unreferenced timers, one
 * sweep at a time), so a server that runs for months keeps about a day of them. `stop` ends the timers and
 * waits for the sweep under way (one statement).
 */
export function sweepIdempotencyKeys(idempotency: { sweep(): Promise<number> }, log: (line: string) => void, scheduler?: Scheduler) {
  let stopped = false;
  let running: Promise<void> | null = null;
  const run = () => {
    if (running || stopped) return;
    running = idempotency
      .sweep()
      .then(
        (removed) => void (removed > 0 && log(`[lp] removed ${removed} expired Idempotency-Key record${removed === 1 ? "" : "s"}`)),
        (error: unknown) => log(`[lp] removing expired Idempotency-Key records failed (tried again in an hour): ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => (running = null));
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
      /** Resolves once the sweep under way (if any) is done: an advance of the clock answers after it. */
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
