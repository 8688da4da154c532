import type { ManualClock } from "../deps.js";

/** A pending timer of a {@link Scheduler}. */
export interface TimerHandle {
  cancel(): void;
}

/**
 * Timers for future work (webhook retries, circuit probes). Injected so that tests move time with the
 * clock instead of sleeping.
 */
export interface Scheduler {
  /** Runs `fn` once `ms` milliseconds have passed. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
}

/** Real timers, unref'd so a pending retry never keeps the process alive. */
export const realScheduler: Scheduler = {
  setTimeout(fn, ms) {
    // Node caps timers at 2^31-1 ms (about 24.8 days); longer waits re-arm.
    const max = 2 ** 31 - 1;
    let timer: ReturnType<typeof setTimeout>;
    const arm = (left: number) => {
      timer = setTimeout(() => (left > max ? arm(left - max) : fn()), Math.min(Math.max(0, left), max));
      timer.unref?.();
    };
    arm(ms);
    return { cancel: () => clearTimeout(timer) };
  },
};

/** A {@link Scheduler} driven by a manual clock: for tests. */
export interface ManualScheduler extends Scheduler {
  /** Moves the clock forward by `ms`, firing every timer that falls due, in order, at its due time. */
  advance(ms: number): void;
  /**
   * Like `advance`, but awaits `settle` (say, the engine's idle) after each timer, so work that a timer
   * starts, and the timers that work sets, happen at their own due times within the same call.
   */
  advanceAsync(ms: number, settle: () => Promise<void>): Promise<void>;
  /** Number of timers not yet fired or cancelled. */
  readonly pending: number;
}

/** Creates a {@link ManualScheduler} over `clock` (the same clock the core reads). */
export function createManualScheduler(clock: ManualClock): ManualScheduler {
  let seq = 0;
  const timers = new Map<number, { due: number; fn: () => void }>();
  /** Fires the earliest timer due by `target` (moving the clock to its due time); false when none is. */
  const fireNext = (target: number): boolean => {
    let next: [number, { due: number; fn: () => void }] | undefined;
    for (const entry of timers) if (entry[1].due <= target && (!next || entry[1].due < next[1].due)) next = entry;
    if (!next) return false;
    timers.delete(next[0]);
    if (next[1].due > clock.now().getTime()) clock.set(new Date(next[1].due));
    next[1].fn();
    return true;
  };
  return {
    setTimeout(fn, ms) {
      const id = ++seq;
      timers.set(id, { due: clock.now().getTime() + Math.max(0, ms), fn });
      return { cancel: () => void timers.delete(id) };
    },
    advance(ms) {
      const target = clock.now().getTime() + ms;
      while (fireNext(target));
      clock.set(new Date(target));
    },
    async advanceAsync(ms, settle) {
      const target = clock.now().getTime() + ms;
      await settle();
      while (fireNext(target)) await settle();
      clock.set(new Date(target));
    },
    get pending() {
      return timers.size;
    },
  };
}
