import { trimEndChars } from "../trim.js";
import { Queue, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { isLpError } from "../errors.js";
import { redisCall } from "../storage/redis-client.js";
import { ready, reportOther, retryStrategy, watch } from "./bullmq-connections.js";
import { logJobError, type Interruption, type JobData, type JobHandler, type JobQueue } from "./queue.js";

// What a run that failed on a Redis outage leaves as its job's failedReason (the store's 503, or ioredis's
// own words for a connection that went away).
const OUTAGE_REASON = /unavailable right now|Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|lost before it could be written/;

/** Options of {@link createBullmqQueue}. */
export interface BullmqQueueOptions {
  /** `redis://host:port/db` of the shared Redis. */
  url: string;
  /** Key prefix of the service on that Redis; the queue's keys live under `{prefix}:background:`. */
  prefix: string;
  /** Jobs this process runs at once (as the local queue). */
  concurrency?: number;
  /**
   * How long a worker's hold on a job lasts without renewal (renewed every half of it while the worker lives).
   * With {@link stalledIntervalMs} it bounds how soon a dead process's job is picked up by another one.
   */
  lockDurationMs?: number;
  /** How often each worker looks for jobs whose holder's lease ran out. */
  stalledIntervalMs?: number;
  /** Start-time recovery leaves alone records younger than this that have no job (see {@link JobQueue.abandoned}). */
  graceMs?: number;
  /** Now, for {@link JobQueue.abandoned}; the core's clock. */
  now?: () => Date;
  onError?: (name: string, error: unknown) => void;
  /** Where connection trouble is reported (once per outage); stderr by default. */
  log?: (line: string) => void;
}

/** What closing reaches inside a BullMQ Worker that cannot finish closing (Redis unreachable). */
interface WorkerInternals {
  lockManager?: { close(): Promise<void> };
}

/** The queue's name under the prefix; one queue carries every kind of job (the job's name picks the handler). */
const QUEUE = "background";
// Job states in which the job is still someone's work.
const LIVE_STATES = new Set(["waiting", "active", "delayed", "prioritized", "waiting-children"]);
// While Redis is unreachable a worker retries this often (BullMQ's default waits 15 s after Redis is back).
const RETRY_DELAY_MS = 1000;
// How long an add waits for a reconnecting client before the request fails (503).
const ADD_WAIT_MS = 1000;
// How long closing waits for BullMQ to record the outcomes of this process's last runs.
const CLOSE_WAIT_MS = 2000;
// Size of the set of jobs added here at which the finished ones are looked up and forgotten.
const FORGET_AT = 256;

/**
 * A {@link JobQueue} on BullMQ, shared by every process on one Redis: one Queue (adds) and one Worker (runs)
 * per process. A worker that dies stops renewing its jobs' locks; another process's stalled-job check moves
 * them back to waiting within `lockDurationMs + stalledIntervalMs`, and the handler that picks one up is told
 * it is `resumed`, so it settles the work as a restart would. Finished jobs are removed (failed ones kept a day,
 * at most 1000). While Redis is unreachable, adds fail at once (the request answers 503) and the worker
 * waits and resumes by itself.
 */
export function createBullmqQueue(options: BullmqQueueOptions): JobQueue {
  const concurrency = options.concurrency ?? 8;
  const lockDuration = options.lockDurationMs ?? 10_000;
  const stalledInterval = options.stalledIntervalMs ?? 5_000;
  const graceMs = options.graceMs ?? 30_000;
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? logJobError;
  const log = options.log ?? ((line: string) => console.error(line));
  const prefix = trimEndChars(options.prefix, ":");
  const handlers = new Map<string, JobHandler>();
  // Jobs this process added that are not known to be finished, and the runs it has in hand.
  const added = new Set<string>();
  // Keyed by run: a job taken away from this process may be run here again while its first run winds down.
  const running = new Map<number, { jobId: string; label: string; done: Promise<void>; hold: AbortController }>();
  let runs = 0;
  const isRunning = (jobId: string) => [...running.values()].some((r) => r.jobId === jobId);
  // onIdle calls waiting for the next finished run (or their next look at Redis).
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const wake of waiters) wake();
    waiters.clear();
  };

  // Adds fail fast while Redis is down (no offline queue, no resending); the worker's client retries for ever.
  const producer = watch(new Redis(options.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true, retryStrategy }), "queue", log);
  const consumer = watch(new Redis(options.url, { maxRetriesPerRequest: null, lazyConnect: true, retryStrategy }), "worker", log);
  let queue: Queue | null = null;
  let worker: Worker | null = null;
  let closing: Promise<void> | null = null;
  let forgetting: Promise<void> | null = null;

  const jobId = (name: string, id: string) => `${name}-${id}`;
  const labelOf = (job: Job) => `${job.name} ${job.id?.slice(job.name.length + 1) ?? "?"}`;

  async function run(job: Job) {
    const handler = handlers.get(job.name);
    if (!handler) throw new Error(`no handler for background job ${job.name}`);
    const label = labelOf(job);
    // Started before (its worker died holding it, or the run threw): settle, do not start over.
    const resumed = job.attemptsStarted > 1;
    // An earlier run that failed on the outage left its reason; one that was found stalled left none.
    const interruption: Interruption | undefined = !resumed ? undefined : job.failedReason && OUTAGE_REASON.test(job.failedReason) ? "outage" : "unknown";
    if (resumed) log(`[lp] background ${label}: an earlier run did not finish (${interruption === "outage" ? "Redis became unreachable during it" : "its process stopped, or lost Redis"}); settling it`);
    // The queue hands a job out again only once the hold of its previous run is gone. When that run is still going
    // here, this worker renews the lock for the new run (BullMQ keeps one per job id), so no lockRenewalFailed
    // would ever tell the old run: it is stopped now, before the new run settles the job.
    for (const older of running.values()) {
      if (older.jobId !== job.id || older.hold.signal.aborted) continue;
      log(`[lp] background ${older.label}: this process lost its hold on the job; stopping its run`);
      older.hold.abort();
    }
    const hold = new AbortController();
    const done = (async () => {
      try {
        await handler(job.data as JobData, { resumed, interruption, signal: hold.signal });
      } catch (error) {
        // An outage is reported once by the clients; the retry settles the job.
        if (isLpError(error) && error.code === "service_unavailable") log(`[lp] background ${label}: Redis unavailable during the run; it is settled once Redis is back`);
        else onError(label, error);
        throw error;
      }
    })();
    const key = runs++;
    running.set(key, { jobId: job.id!, label, done: done.catch(() => {}), hold });
    try {
      await done;
    } finally {
      // Still in `added` until Redis has it completed (the worker's `completed` event, or onIdle asking).
      running.delete(key);
      notify();
    }
  }

  /** Drops from `added` the jobs Redis says are finished (run by another process); unreachable: keeps them. */
  async function forgetFinished() {
    for (const key of [...added]) {
      if (isRunning(key)) continue;
      const state = await queue?.getJobState(key).catch(() => "active");
      if (!state || !LIVE_STATES.has(state)) added.delete(key);
    }
  }

  /** Connects, then opens the Queue and the Worker. */
  async function open() {
    await Promise.all([producer.connect(), consumer.connect()]);
    queue = new Queue(QUEUE, {
      connection: producer,
      prefix,
      // BullMQ's event stream, which nothing here reads: kept short.
      streams: { events: { maxLen: 1000 } },
      defaultJobOptions: {
        removeOnComplete: true,
        removeOnFail: { age: 24 * 3600, count: 1000 },
        // A run that throws (its storage went away mid-step) is run again, resumed, to settle it.
        attempts: 5,
        backoff: { type: "exponential", delay: 1000 },
      },
    });
    queue.on("error", (error) => reportOther("queue", error, log));
    await queue.waitUntilReady();
    worker = new Worker(QUEUE, run, {
      connection: consumer,
      prefix,
      concurrency,
      lockDuration,
      stalledInterval,
      // A job found stalled again after it was resumed still gets a run that settles it.
      maxStalledCount: 3,
      runRetryDelay: RETRY_DELAY_MS,
    });
    worker.on("error", (error) => reportOther("worker", error, log));
    // Redis says the lock is gone (an outage outlasted it): another process may be settling the job.
    worker.on("lockRenewalFailed", (jobIds) => {
      for (const run of running.values()) {
        if (!jobIds.includes(run.jobId) || run.hold.signal.aborted) continue;
        log(`[lp] background ${run.label}: this process lost its hold on the job; stopping its run`);
        run.hold.abort();
      }
    });
    worker.on("completed", (job) => {
      added.delete(job.id!);
      notify();
    });
    await worker.waitUntilReady();
  }

  function requireQueue(): Queue {
    if (!queue) throw new Error("the background queue is not started");
    return queue;
  }

  return {
    shared: true,
    handle(name, handler) {
      handlers.set(name, handler);
    },
    async add(name, id, data) {
      const q = requireQueue();
      // Reconnecting after an outage: wait a moment rather than fail a request Redis could take.
      if (producer.status !== "ready") await ready(producer, ADD_WAIT_MS);
      const key = jobId(name, id);
      // Tracked before it exists: this process's worker may finish it before `add` returns.
      added.add(key);
      try {
        // An outage is the request's 503 (service_unavailable), as for the store.
        await redisCall(() => q.add(name, data, { jobId: key }));
      } catch (error) {
        added.delete(key);
        throw error;
      }
      // Jobs run by other processes finish unseen here: forget them now and then so the set stays small.
      if (added.size >= FORGET_AT && !forgetting) forgetting = forgetFinished().finally(() => (forgetting = null));
    },
    async start() {
      try {
        await open();
      } catch (error) {
        // Not started (Redis unreachable at start): no client may keep retrying and hold the process open.
        void worker?.close(true).catch(() => {});
        void queue?.close().catch(() => {});
        producer.disconnect();
        consumer.disconnect();
        throw error;
      }
    },
    async abandoned(name, id, since) {
      if (now().getTime() - since.getTime() < graceMs) return false;
      const state = await requireQueue().getJobState(jobId(name, id));
      return !LIVE_STATES.has(state);
    },
    async onIdle() {
      for (;;) {
        await Promise.all([...running.values()].map((r) => r.done));
        await forgetFinished();
        if (added.size === 0 && running.size === 0) return;
        await new Promise<void>((resolve) => {
          waiters.add(resolve);
          setTimeout(() => waiters.delete(resolve) && resolve(), 50);
        });
      }
    },
    get pending() {
      return new Set([...added, ...[...running.values()].map((r) => r.jobId)]).size;
    },
    names: () => [...running.values()].map((r) => r.label),
    close() {
      closing ??= (async () => {
        // Stops taking jobs at once (no Redis needed) and waits for this process's runs; jobs still waiting
        // stay in Redis for the other processes.
        await worker?.pause(true).catch(() => {});
        await Promise.all([...running.values()].map((r) => r.done));
        // With Redis up the outcomes are recorded in a moment; unreachable, BullMQ would retry for ever. A
        // job whose outcome is lost here is taken again once its lock runs out, and settled as resumed.
        const closed = Promise.all([worker?.close(), queue?.close()]).then(
          () => true,
          () => true,
        );
        const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), CLOSE_WAIT_MS).unref());
        if (!(await Promise.race([closed, timeout]))) {
          // Its lock renewal timer and blocking connection would keep the process alive.
          void (worker as unknown as WorkerInternals | null)?.lockManager?.close().catch(() => {});
          void Promise.all([worker?.disconnect(), queue?.disconnect()]).catch(() => {});
        }
        producer.disconnect();
        consumer.disconnect();
      })();
      return closing;
    },
  };
}
