import PQueue from "p-queue";
import { StorageFaultError } from "../storage/storage-faults.js";

/** A job's data: plain JSON (ids), so that any process can run it from a shared queue. */
export type JobData = Record<string, string>;

/** What a handler learns about the run it is asked for. */
export interface JobContext {
  /**
   * True when the job was started before and its run did not finish: its worker died holding it (a shared
   * queue found it stalled) or the run threw. The handler settles the work as a restart would, instead of
   * starting it over.
   */
  resumed: boolean;
  /** With `resumed`: what is known of why the earlier run did not finish, for the message the work is settled with. */
  interruption?: Interruption;
  /**
   * Aborted when this process no longer holds the job: a shared queue could not renew its lock (Redis was away
   * longer than the lock), so another process may be settling it. The run stops before its next write.
   */
  signal: AbortSignal;
}

/** Thrown inside a run whose job was taken away from this process (see {@link JobContext.signal}). */
export class HoldLost extends Error {
  constructor() {
    super("this process no longer holds the job");
  }
}

/** Runs the jobs of one name. Its failure is reported to the queue's `onError`, never thrown at the caller of `add`. */
export type JobHandler = (data: JobData, context: JobContext) => Promise<void>;

/**
 * Background work as named jobs with JSON data: page generation, deployments. Handlers are registered by
 * name, so any process that registered them can run any job.
 */
export interface JobQueue {
  /** Whether the queue is shared by several processes (jobs may run, or be running, in another one). */
  readonly shared: boolean;
  /** Registers the handler of the jobs named `name` (before {@link start}). */
  handle(name: string, handler: JobHandler): void;
  /**
   * Schedules job `id` of `name` (one job per id: adding an id again while it exists adds nothing). Rejects
   * when the job cannot be stored (a shared queue whose Redis is unreachable): the request that asked for it fails.
   */
  add(name: string, id: string, data: JobData): Promise<void>;
  /** Starts taking jobs (after start-time recovery). */
  start(): Promise<void>;
  /**
   * Whether start-time recovery may settle the work of job `id`: no queued or running job has it. `since` is
   * the last write of the record; on a shared queue a record younger than a grace period is left alone (its
   * request may be between writing the record and adding the job).
   */
  abandoned(name: string, id: string, since: Date): Promise<boolean>;
  /** Resolves when the jobs this process added, and those it runs, are finished. */
  onIdle(): Promise<void>;
  /** Number of jobs this process added or runs that are not finished. */
  readonly pending: number;
  /** `name id` of the jobs this process is running or holds (what a shutdown that runs out of time leaves behind). */
  names(): string[];
  /** Stops taking jobs and waits for this process's running ones; then releases the queue's connections. */
  close(): Promise<void>;
}

/** Options of {@link createLocalQueue}. */
export interface LocalQueueOptions {
  concurrency?: number;
  onError?: (name: string, error: unknown) => void;
}

/** Reports a failed job once, on stderr. */
export const logJobError = (name: string, error: unknown) =>
  // A storage fault is already reported by the storage's own lines: one line here, no stack trace.
  error instanceof StorageFaultError ? console.error(`[lp] background task ${name} stopped: ${error.message}`) : console.error(`[lp] background task ${name} failed:`, error);

/** A {@link JobQueue} on p-queue, inside this process: jobs start as soon as they are added. */
export function createLocalQueue(options: LocalQueueOptions = {}): JobQueue {
  const queue = new PQueue({ concurrency: options.concurrency ?? 8 });
  const onError = options.onError ?? logJobError;
  const handlers = new Map<string, JobHandler>();
  // One process: a job is never taken away from it.
  const held = new AbortController().signal;
  // A multiset of labels: two jobs may share one.
  const live = new Map<number, string>();
  let next = 0;
  return {
    shared: false,
    handle(name, handler) {
      handlers.set(name, handler);
    },
    add(name, id, data) {
      const handler = handlers.get(name);
      if (!handler) return Promise.reject(new Error(`no handler for background job ${name}`));
      const label = `${name} ${id}`;
      const key = next++;
      live.set(key, label);
      queue
        .add(() => handler(data, { resumed: false, signal: held }))
        .catch((error: unknown) => onError(label, error))
        .finally(() => live.delete(key));
      return Promise.resolve();
    },
    start: () => Promise.resolve(),
    // One process: whatever a journal holds at start was left by a process that is gone.
    abandoned: () => Promise.resolve(true),
    onIdle: () => queue.onIdle(),
    get pending() {
      return queue.size + queue.pending;
    },
    names: () => [...live.values()],
    close: () => queue.onIdle(),
  };
}

/**
 * Why a run of background work ended unfinished: its server stopped (a restart of a single process), Redis
 * became unreachable during it (the run failed on the outage), or its run was lost without a word (a shared
 * queue found it stalled: its process was killed, or lost Redis long enough to lose its hold).
 */
export type Interruption = "stopped" | "outage" | "unknown";

/** The `worker_terminated` message of work settled after an interrupted run, true to what is known. */
export function interruptedMessage(what: "job" | "deployment", step: string | null | undefined, cause: Interruption = "stopped"): string {
  const at = `at step ${step ?? "unknown"}`;
  if (cause === "outage") return `Redis became unreachable while the ${what} was ${at}; it was not resumed.`;
  if (cause === "unknown") return `The run of the ${what} ended ${at} without finishing (its process stopped, or lost Redis for longer than its hold).`;
  return `The server stopped while the ${what} was ${at}.`;
}
