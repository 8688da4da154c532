import type { Job, Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { isLpError } from "../errors.js";
import { retryStrategy } from "../ports/bullmq-connections.js";
import { isRedisUnavailable, refuseWrongDatabase } from "../storage/redis-client.js";
import { bullmq, ioredis } from "../storage/redis-modules.js";
import { clusterKeys } from "./webhook-store.js";

/** Where the Redis of a cluster is, for the webhook engine's own connections. */
export interface WebhookCluster {
  /** `redis://host:port/db` */
  url: string;
  /** Prefix of every key the engine makes (BullMQ's included), so several services can share one Redis. */
  prefix: string;
  /**
   * How long a worker's hold on a running job lasts without renewal, and how often workers look for jobs
   * whose hold ran out (a dead process's): a job stalled by a crash runs again within about twice this.
   * Default 5 s (so within 10 s); tests shorten it.
   */
  stallMs?: number;
}

/** The two kinds of job: one attempt of a delivery, and the fan-out of one event. */
export type SharedJob = { kind: "attempt"; id: string; endpoint_id: string } | { kind: "fanout"; event_id: string };

/** The BullMQ queue's name (under the cluster's `bull` prefix). */
export const QUEUE = "lp-webhooks";
/** How long closing waits on BullMQ before it lets the connections go. */
const CLOSE_WAIT_MS = 2000;
/** Jobs one process runs at once: attempts mostly wait on the network (or on an endpoint's slot). */
export const WORKER_CONCURRENCY = 64;

/**
 * An ioredis client that reports a lost connection in one line once per outage, and one line when it is
 * back; never throws an `error` event at the process.
 */
export function connectRedis(url: string, what: string, log: (line: string) => void): Redis {
  const client = new (ioredis().Redis)(url, { maxRetriesPerRequest: null, retryStrategy });
  refuseWrongDatabase(client);
  let down = false;
  const lost = (why: string) => {
    if (!down && client.status !== "end") log(`[lp] ${what}: Redis unreachable (${why}); retrying`);
    down = true;
  };
  client.on("error", (error: Error) => lost(error.message));
  client.on("reconnecting", () => lost("connection closed"));
  client.on("ready", () => {
    if (down) log(`[lp] ${what}: Redis reachable again`);
    down = false;
  });
  return client;
}

/** Whether a job or queue error is the outage the connection has already reported. */
export function isOutage(error: unknown): boolean {
  return (isLpError(error) && error.code === "service_unavailable") || isRedisUnavailable(error);
}

/**
 * The webhook engine's BullMQ queue on the cluster's Redis: delayed jobs are the retry schedule, any
 * process's worker runs any job, and a job whose worker died is run again by another (stalled-job
 * detection). A job id names what the job is for, so adding the same work twice (a recovery at start while
 * another process runs it) adds nothing.
 */
export function createSharedQueue(cluster: WebhookCluster, onError: (what: string, error: unknown) => void, log: (line: string) => void = (line) => console.error(line)) {
  const prefix = clusterKeys(cluster.prefix).bull;
  const queueConnection = connectRedis(cluster.url, "webhook queue", log);
  const queue = new (bullmq().Queue)<SharedJob>(QUEUE, {
    connection: queueConnection,
    prefix,
    defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000, attempts: 50, backoff: { type: "fixed", delay: 1000 } },
  });
  // Errors while the connection is down were reported once by the connection; BullMQ repeats them per command.
  queue.on("error", (error) => queueConnection.status === "ready" && !isOutage(error) && onError("webhook queue", error));
  let worker: Worker<SharedJob> | null = null;
  let workerConnection: Redis | null = null;
  const stallMs = cluster.stallMs ?? 5_000;

  return {
    /** Adds a job to run after `delayMs`; nothing when a job with `jobId` is already queued or running. */
    async add(job: SharedJob, jobId: string, delayMs = 0): Promise<void> {
      await queue.add(job.kind, job, { jobId, delay: Math.max(0, delayMs) });
    },
    /** Starts this process's worker. */
    start(run: (job: SharedJob) => Promise<void>): void {
      if (worker) return;
      workerConnection = connectRedis(cluster.url, "webhook worker", log);
      worker = new (bullmq().Worker)<SharedJob>(QUEUE, (job: Job<SharedJob>) => run(job.data), {
        connection: workerConnection,
        prefix,
        concurrency: WORKER_CONCURRENCY,
        lockDuration: stallMs,
        stalledInterval: stallMs,
        maxStalledCount: 100,
        // A worker waiting on an empty queue looks again each second (BullMQ's default is 5 s), so a retry
        // another process queued and left is taken up promptly.
        drainDelay: 1,
      });
      worker.on("error", (error) => workerConnection?.status === "ready" && !isOutage(error) && onError("webhook worker", error));
      // Work handed back on a close runs again elsewhere, and an outage was reported by the connection: neither
      // is reported per job (the job runs again either way).
      worker.on("failed", (job, error) => job && !(error as { requeued?: boolean }).requeued && !isOutage(error) && onError(`webhook job ${job.id}`, error));
    },
    /** Whether jobs are waiting or running anywhere, or due already (future retries do not count). */
    async busy(): Promise<boolean> {
      const counts = await queue.getJobCounts("wait", "active", "prioritized");
      if (Object.values(counts).some((n) => n > 0)) return true;
      const delayed = await queue.getDelayed(0, 20);
      return delayed.some((job) => job.timestamp + (job.opts.delay ?? 0) <= Date.now());
    },
    /**
     * Stops the worker; the caller has let the attempts it ran finish first. BullMQ's own close can wait on a
     * blocking connection that is still reconnecting after an outage, so it gets a bounded time, and then
     * the connections go anyway (a job still held would stall and run elsewhere).
     */
    async close(): Promise<void> {
      const bounded = (what: string, closing: Promise<void>) =>
        Promise.race([closing.catch((error: unknown) => onError(what, error)), new Promise<void>((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
      if (worker) await bounded("closing the webhook worker", worker.close());
      await bounded("closing the webhook queue", queue.close());
      workerConnection?.disconnect();
      queueConnection.disconnect();
    },
    /** Stops taking new jobs (the ones running go on). */
    async pause(): Promise<void> {
      await worker?.pause(true);
    },
  };
}

export type SharedQueue = ReturnType<typeof createSharedQueue>;
