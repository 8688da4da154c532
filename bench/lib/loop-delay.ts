import type { ChildProcess } from "node:child_process";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { fmt } from "./table.js";

/**
 * How often the monitor's timer asks to run (ms). `monitorEventLoopDelay` records the time between two
 * runs of that timer, so an idle loop records this interval itself; the delay is what exceeds it.
 */
export const LOOP_RESOLUTION_MS = 5;

/** Event-loop delay over one window, in ms beyond the timer's interval. */
export interface LoopDelay {
  p99: number;
  max: number;
  /** Timer runs recorded; a window with none has no figures. */
  samples: number;
}

/** Messages between the bench and its server children (over the IPC channel). */
export type LoopMessage =
  | { loop: "start" }
  | { loop: "stop" }
  | { loop: "started" }
  | { loop: "stats"; stats: LoopDelay | null }
  | { loop: "gc" }
  | { loop: "collected"; rssMb: number };

/** A monitor at {@link LOOP_RESOLUTION_MS}; enabled by the caller. */
export function createLoopHistogram(): IntervalHistogram {
  return monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
}

/** The figures of a histogram the monitor filled; null when it recorded nothing. */
export function loopStats(histogram: IntervalHistogram): LoopDelay | null {
  if (histogram.count === 0) return null;
  const beyond = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
  return { p99: beyond(histogram.percentile(99)), max: beyond(histogram.max), samples: histogram.count };
}

/** The worst of several windows: the highest p99 and the highest max (conservative, never an average). */
export function worstLoop(windows: readonly (LoopDelay | null)[]): LoopDelay | null {
  const seen = windows.filter((w): w is LoopDelay => w !== null);
  if (seen.length === 0) return null;
  return {
    p99: Math.max(...seen.map((w) => w.p99)),
    max: Math.max(...seen.map((w) => w.max)),
    samples: seen.reduce((n, w) => n + w.samples, 0),
  };
}

/** A table cell: `p99 1.2 / max 8.4 ms`, or `n/a` when nothing was recorded. */
export const describeLoop = (d: LoopDelay | null) => (d ? `p99 ${fmt(d.p99, 1)} / max ${fmt(d.max, 1)} ms` : "n/a");

/**
 * Windows of event-loop delay in one process. Each window gets a freshly reset monitor: re-enabling a
 * monitor without a reset would record the whole pause as one delay.
 */
export interface LoopProbe {
  /** Runs `work` inside a window of the monitored process and keeps that window's figures. */
  around<T>(work: () => Promise<T>): Promise<T>;
  /** Every window so far, worst first ({@link worstLoop}); null with none. */
  worst(): LoopDelay | null;
}

/** A probe of this very process: for scenarios whose server runs in the bench's own process. */
export function inProcessProbe(): LoopProbe {
  const windows: (LoopDelay | null)[] = [];
  return {
    async around(work) {
      const histogram = createLoopHistogram();
      histogram.enable();
      try {
        return await work();
      } finally {
        histogram.disable();
        windows.push(loopStats(histogram));
      }
    },
    worst: () => worstLoop(windows),
  };
}

/**
 * A probe of a child started with the hook (`bench/lib/loop-hook.ts`, loaded with `--import`) and an IPC
 * channel: the window opens in the child before `work` starts and closes after it ends, so idle time
 * between load runs never dilutes the figures. {@link ChildLoop.sinceStart} reads the child's first
 * window, open from its start (start-up and first use).
 */
export interface ChildLoop extends LoopProbe {
  sinceStart(): Promise<LoopDelay | null>;
  /**
   * A full garbage collection in the child (started with `--expose-gc`), then its resident set size in MB:
   * a footprint without the garbage of whatever ran last.
   */
  collect(): Promise<number>;
}

/** Builds the {@link ChildLoop} of `child`; every call fails clearly when the child has no IPC channel. */
export function childProbe(child: ChildProcess): ChildLoop {
  const windows: (LoopDelay | null)[] = [];
  const ask = <T extends LoopMessage>(message: LoopMessage, answer: T["loop"]): Promise<T> =>
    new Promise((resolve, reject) => {
      if (!child.send || !child.connected) return reject(new Error("the server child has no IPC channel for its event-loop figures"));
      const timer = setTimeout(() => finish(new Error(`no ${answer} from the server child within 10 s`)), 10_000);
      const onMessage = (m: unknown) => {
        if ((m as LoopMessage | null)?.loop === answer) finish(null, m as T);
      };
      const onExit = () => finish(new Error("the server child exited before answering"));
      const finish = (error: Error | null, value?: T) => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        if (error) reject(error);
        else resolve(value!);
      };
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send(message);
    });
  const stop = async () => (await ask<{ loop: "stats"; stats: LoopDelay | null }>({ loop: "stop" }, "stats")).stats;
  return {
    async around(work) {
      await ask({ loop: "start" }, "started");
      try {
        return await work();
      } finally {
        windows.push(await stop());
      }
    },
    worst: () => worstLoop(windows),
    sinceStart: stop,
    collect: async () => (await ask<{ loop: "collected"; rssMb: number }>({ loop: "gc" }, "collected")).rssMb,
  };
}
