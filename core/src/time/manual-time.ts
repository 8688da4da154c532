import { createManualClock, toTimestamp, type Clock, type ManualClock } from "../deps.js";
import { LpError } from "../errors.js";
import { createManualScheduler, type Scheduler } from "../webhooks/scheduler.js";

/**
 * The time of a core started with a manual clock (`lp serve --clock manual`): one clock every stamp reads,
 * one scheduler every future piece of work waits on (webhook retries, circuit probes, the pauses of
 * generation and deployment steps), and a sleep over that scheduler. Nothing moves until {@link advance}.
 */
export interface ManualTime {
  readonly clock: ManualClock;
  /** Work due now (or earlier) runs at once; later work waits for an advance past its due time. */
  readonly scheduler: Scheduler;
  /** Resolves when the clock has been advanced `ms` past now; at once once {@link release}d. */
  sleep(ms: number): Promise<void>;
  /** Pauses waiting on the clock now: work that is blocked on time rather than running. */
  readonly sleeping: number;
  /**
   * Moves the clock `ms` forward, firing every timer that falls due in time order at its due time, and
   * awaiting `settle` (the core's work that is not waiting on time) after each, so what a timer starts,
   * and the timers that work sets, happen at their own due times within the same call.
   */
  advance(ms: number, settle: () => Promise<void>): Promise<void>;
  /** Ends every pause now and lets later ones go at once: a closing core must not wait for a clock nobody moves. */
  release(): void;
}

/** Creates a {@link ManualTime} starting at `start`. */
export function createManualTime(start: Date | string): ManualTime {
  const clock = createManualClock(start);
  const manual = createManualScheduler(clock);
  const pauses = new Set<() => void>();
  let released = false;
  const scheduler: Scheduler = {
    setTimeout(fn, ms) {
      // Due now: as real timers would, on a later turn of the event loop, without waiting for an advance.
      if (ms <= 0) {
        const timer = setImmediate(fn);
        return { cancel: () => clearImmediate(timer) };
      }
      return manual.setTimeout(fn, ms);
    },
  };
  return {
    clock,
    scheduler,
    sleep(ms) {
      if (released || ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          pauses.delete(done);
          handle.cancel();
          resolve();
        };
        pauses.add(done);
        const handle = manual.setTimeout(done, ms);
      });
    },
    get sleeping() {
      return pauses.size;
    },
    advance: (ms, settle) => manual.advanceAsync(ms, settle),
    release() {
      released = true;
      for (const done of [...pauses]) done();
    },
  };
}

/** Most a clock may be moved in one call: a year and a day (each call is bounded work). */
export const MAX_ADVANCE_MS = 366 * 86_400_000;

/** The time of a core as the admin API shows and moves it. */
export interface TimeControl {
  /** `system`: the machine's clock; `manual`: moves only when told. */
  readonly mode: "system" | "manual";
  now(): Date;
  /** Moves a manual clock `ms` forward and runs what fell due; resolves with the new time. */
  advance(ms: number): Promise<Date>;
  /** Moves a manual clock forward to `to` (never back) and runs what fell due; resolves with the new time. */
  set(to: Date): Promise<Date>;
}

/** The {@link TimeControl} of a core: `manual` (with the work that `settle` waits for) or the system clock. */
export function createTimeControl(clock: Clock, manual: { time: ManualTime; settle: () => Promise<void> } | null): TimeControl {
  // One move at a time: two advances racing would fire timers out of order.
  let chain: Promise<unknown> = Promise.resolve();
  const move = (target: (now: number) => number): Promise<Date> => {
    if (!manual) {
      return Promise.reject(new LpError("validation_error", "The clock is the system's and cannot be moved: start lp with --clock manual (startLp({ clock: \"manual\" })).", { mode: "system" }));
    }
    const run = chain.then(async () => {
      const now = clock.now().getTime();
      const to = target(now);
      if (!Number.isFinite(to)) throw new LpError("validation_error", "The time to move the clock to is not a valid timestamp.");
      if (to < now) throw new LpError("validation_error", `The clock only moves forward: it is ${toTimestamp(new Date(now))}, later than ${toTimestamp(new Date(to))}.`, { now: toTimestamp(new Date(now)) });
      if (to - now > MAX_ADVANCE_MS) throw new LpError("validation_error", "The clock moves at most 366 days at a time.", { max_ms: MAX_ADVANCE_MS });
      await manual.time.advance(to - now, manual.settle);
      return clock.now();
    });
    chain = run.catch(() => {});
    return run;
  };
  return {
    mode: manual ? "manual" : "system",
    now: () => clock.now(),
    advance: (ms) => move((now) => now + ms),
    set: (to) => move(() => to.getTime()),
  };
}

/** Jobs the in-process queue runs at once when the clock is manual (the settle below counts on it). */
export const MANUAL_JOB_CONCURRENCY = 8;

/**
 * Resolves once the core's work is done or waiting on the manual clock: no webhook fan-out or attempt runs,
 * and every job the queue could be running is paused on the clock. What an advance fires runs to that point
 * before the next timer, so an advance answers with everything that fell due done.
 */
export function settleOnClock(time: ManualTime, queue: { readonly pending: number }, webhooks: { onIdle(): Promise<void> }): () => Promise<void> {
  const blocked = () => queue.pending === 0 || time.sleeping >= Math.min(queue.pending, MANUAL_JOB_CONCURRENCY);
  return async () => {
    for (;;) {
      await webhooks.onIdle();
      // Twice, a turn of the event loop apart: work due now is started on the next turn (setImmediate).
      if (blocked()) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        await webhooks.onIdle();
        if (blocked()) return;
      }
      // A job between two pauses is doing I/O: look again shortly rather than spin.
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
  };
}
