import type { Storage } from "unstorage";
import type { AccountsService } from "../accounts/accounts-service.js";
import type { Clock, IdSource } from "../deps.js";
import { stageEvent, type DomainEvent, type EventSink } from "../events/event-sink.js";
import type { CursorCodec } from "../lists/cursor.js";
import type { IndexRegistry } from "../lists/index-registry.js";
import type { Lock } from "../ports/lock.js";
import type { Stores } from "../storage/create-storage.js";
import { createClusterEngine, type ClusterEngine } from "./cluster-engine.js";
import { createRedisSemaphore } from "./redis-semaphore.js";
import { createSharedCircuit } from "./shared-circuit.js";
import { connectRedis, createSharedQueue, type SharedJob, type WebhookCluster } from "./shared-queue.js";
import { createAddressGuard, dnsResolveHost, type ResolveHost } from "./address-guard.js";
import { createDeliveryEngine } from "./delivery-engine.js";
import { createEndpointsService, DEFAULT_MAX_ENDPOINTS } from "./endpoints-service.js";
import { createEventOutbox } from "./event-outbox.js";
import { createEventLog } from "./event-log.js";
import { createEventReplay, type ReplayWindow } from "./event-replay.js";
import type { FanOutHealth } from "./when-writable.js";
import { fetchPoster, type FetchLike, type Poster } from "./http-attempt.js";
import { createHttpPoster } from "./http-poster.js";
import { createGuardedPoster } from "./public-lookup.js";
import { DEFAULT_RETRY_SCHEDULE } from "./retry-policy.js";
import { realScheduler, type Scheduler } from "./scheduler.js";
import { clusterKeys, createWebhookStore } from "./webhook-store.js";
import { createWorkTracker } from "./work-tracker.js";
import type { ChangeMark } from "../db/change-mark.js";

/** Settings of the webhook engine a caller may change; tests shorten the timeouts. */
export interface WebhookOptions {
  /**
   * Sends the requests through this fetch instead of the engine's own HTTP client (node:http with kept-alive
   * sockets; with `publicOnly`, one whose sockets connect only to public addresses, resolved with
   * `resolveHost`, so DNS rebinding fails the attempt).
   */
  fetch?: FetchLike;
  /** Timers for future attempts; real timers by default, a manual scheduler in tests. */
  scheduler?: Scheduler;
  /** Delays before attempts 1, 2, … in ms. Default: DESIGN §9. */
  retrySchedule?: readonly number[];
  /** Refuse receivers on private, loopback, link-local and metadata addresses (`lp serve --public`). */
  publicOnly?: boolean;
  /** Resolves host names for `publicOnly` (node:dns by default). */
  resolveHost?: ResolveHost;
  /** Most endpoints per application, default 100 (`lp serve --max-endpoints`); over it, 403 quota_exceeded. */
  maxEndpoints?: number;
  /** How long emitted events are kept for replay, by the core's clock; default 7 days (`lp serve --event-retention`). */
  eventRetentionMs?: number;
  /** Per-attempt timeout, default 15 s. */
  deliveryTimeoutMs?: number;
  /** Verification bound, default 10 s. */
  verificationTimeoutMs?: number;
  /** Monotonic milliseconds for latency; `performance.now` by default. */
  monotonic?: () => number;
  /** Where background failures are reported. Default: stderr. */
  onError?: (what: string, error: unknown) => void;
  /**
   * The Redis of a cluster, when the stores do not say where theirs is (tests); with it, deliveries run
   * cluster-wide (see `shared` below).
   */
  cluster?: WebhookCluster;
}

/**
 * Where a shared store's Redis is, for the webhook engine's own connections (BullMQ, the semaphore): the
 * Redis stores carry it; memory and fs have none.
 */
export function clusterOf(stores: Stores): WebhookCluster | undefined {
  return stores.kind === "redis" && stores.redis ? { url: stores.redis.url, prefix: stores.redis.prefix } : undefined;
}

/** What the core hands the webhook engine. */
export interface WebhookDeps extends WebhookOptions {
  storage: Storage;
  indexes: IndexRegistry;
  cursors: CursorCodec;
  clock: Clock;
  ids: IdSource;
  lock: Lock;
  accounts: Pick<AccountsService, "get" | "getApp">;
  /** On SQLite: the collections newest first from the database, which deliveries lists read (no index in memory). */
  ordered?: Stores["ordered"];
  /** The stores' batch (`Stores.batch`): on SQLite one transaction, the group commit the delivery records are written with. */
  batch?: Stores["batch"];
  /**
   * Several processes on one Redis (`--storage redis`): attempts and fan-outs become BullMQ jobs, the
   * endpoint's concurrency and circuit hold across processes. Absent on memory and fs.
   */
  shared?: { cluster: WebhookCluster; batch: Stores["batch"] };
  /** The storage's fault watch: a fan-out it refused runs again once it takes writes (memory and fs). */
  storageHealth?: FanOutHealth;
}

/**
 * An endpoint's concurrency slot (and its circuit's probe), renewed every third of this while its attempt
 * runs: a process killed holding them frees them within this, well inside the 10 s an operator is promised (docs/scale-out.md).
 */
const SLOT_LEASE_MS = 6_000;
/** Longest hold of an endpoint's change lock (a read and a write of one record). */
const ENDPOINT_LOCK_MS = 10_000;
/** How often a cluster member queues again what the outbox holds (a job id keeps it to one job per event). */
const OUTBOX_SWEEP_MS = 30_000;
/** How often `onIdle` looks again at a cluster's queue while work is left. */
const IDLE_POLL_MS = 20;

/**
 * Builds the webhook engine: the event sink every service emits to, the developer-plane operations,
 * and the delivery engine behind them. Call `start()` once to pick up work a previous run left.
 */
export function createWebhooks(deps: WebhookDeps) {
  // One line per problem, never a stack trace: an operator reads these in a log, not a debugger.
  const onError = deps.onError ?? ((what: string, error: unknown) => console.error(`[lp] webhooks: ${what} failed: ${error instanceof Error ? error.message : String(error)}`));
  const log = (line: string) => console.error(line);
  const resolveHost = deps.resolveHost ?? dnsResolveHost;
  const post: Poster = deps.fetch ? fetchPoster(deps.fetch) : deps.publicOnly ? createGuardedPoster(resolveHost) : createHttpPoster();
  const monotonic = deps.monotonic ?? (() => performance.now());
  // Checked before each attempt too (a clear error early); the guarded fetch checks again at connect.
  const guard = createAddressGuard(deps.publicOnly ?? false, resolveHost);
  const token = () => deps.ids.uuid();
  const store = createWebhookStore(deps.storage, deps.indexes, deps.shared && { batch: deps.shared.batch, token }, deps.batch, deps.ordered);
  const work = createWorkTracker();
  const common = { clock: deps.clock, ids: deps.ids };
  const timeoutMs = deps.deliveryTimeoutMs ?? 15_000;
  const engineDeps = { ...common, store, lock: deps.lock, post, guard, retrySchedule: deps.retrySchedule ?? DEFAULT_RETRY_SCHEDULE, timeoutMs, monotonic, work, onError };
  const cluster = deps.shared?.cluster;
  const queue = cluster ? createSharedQueue(cluster, onError, log) : undefined;
  const redis = cluster ? connectRedis(cluster.url, "webhook engine", log) : undefined;
  // One change of an endpoint at a time across the cluster (its circuit, a PATCH): a semaphore of one slot.
  const endpointLocks = redis && cluster ? createRedisSemaphore(redis, { prefix: clusterKeys(cluster.prefix).endpointLocks, leaseMs: ENDPOINT_LOCK_MS, token }) : undefined;
  const exclusive = endpointLocks && (<T>(endpointId: string, fn: () => Promise<T>) => endpointLocks.run(endpointId, 1, fn));
  const clusterEngine: ClusterEngine | undefined =
    cluster && queue && redis
      ? createClusterEngine({
          ...engineDeps,
          queue,
          semaphore: createRedisSemaphore(redis, { prefix: clusterKeys(cluster.prefix).slots, leaseMs: SLOT_LEASE_MS, token }),
          circuit: createSharedCircuit({ redis, prefix: cluster.prefix, store, exclusive: exclusive!, clock: deps.clock, probeLeaseMs: SLOT_LEASE_MS, token, resume: (id): Promise<void> => clusterEngine!.resume(id) }),
          exclusive: exclusive!,
          // Production delays are BullMQ's delayed jobs; tests that inject a scheduler move time themselves.
          timers: deps.scheduler && deps.scheduler !== realScheduler ? deps.scheduler : undefined,
        })
      : undefined;
  const engine = clusterEngine ?? createDeliveryEngine({ ...engineDeps, scheduler: deps.scheduler ?? realScheduler });
  const eventLog = createEventLog({ clock: deps.clock, retentionMs: deps.eventRetentionMs });
  const outbox = createEventOutbox({ ...common, store, accounts: deps.accounts, engine, work, onError, shared: queue, health: deps.storageHealth, log: eventLog });
  const replays = createEventReplay({ ...common, store, engine, log: eventLog, accounts: deps.accounts });
  let sweep: ReturnType<typeof setInterval> | undefined;
  const runJob = (job: SharedJob): Promise<void> => {
    const done = job.kind === "attempt" ? clusterEngine!.run(job) : outbox.runFanOut(job.event_id);
    work.track(done);
    return done;
  };
  const endpoints = createEndpointsService({
    ...common,
    store,
    engine,
    guard,
    cursors: deps.cursors,
    lock: deps.lock,
    maxEndpoints: deps.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS,
    challenge: { ...common, post, guard, timeoutMs: deps.verificationTimeoutMs ?? 10_000, monotonic },
  });

  return {
    /** The sink the services emit to. */
    sink: outbox.sink,
    endpoints,
    /** The events kept for replay (in this process's memory), and how long. */
    events: { get size() { return eventLog.size; }, retentionMs: eventLog.retentionMs, capacity: eventLog.capacity },
    /** Schedules a new delivery to endpoint `id` of each kept event in the window it would have been sent (admin API). */
    replay: (endpointId: string, window: ReplayWindow, _change?: ChangeMark) => replays.replay(endpointId, window),
    /** Loads endpoints and picks up unfinished fan-outs and pending deliveries. */
    async start(): Promise<{ events: number; deliveries: number }> {
      await store.load();
      queue?.start(runJob);
      const events = await outbox.recover();
      const deliveries = await engine.recover();
      if (queue && !sweep) {
        sweep = setInterval(() => void outbox.recover().catch((error) => onError("queueing the outbox again", error)), OUTBOX_SWEEP_MS);
        sweep.unref();
      }
      return { events, deliveries };
    },
    /**
     * Resolves when no fan-out or attempt is queued or running (future retries do not count); in a
     * cluster, in any process.
     */
    async onIdle(): Promise<void> {
      await work.onIdle();
      while (queue && !engine.closed && (work.active > 0 || (await queue.busy()))) {
        await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
        await work.onIdle();
      }
      await store.flush();
    },
    /** Stops timers and queued work and waits for attempts in flight. Pending work stays stored. */
    async close(): Promise<void> {
      if (sweep) clearInterval(sweep);
      await engine.close();
      redis?.disconnect();
    },
    /** Before an admin reset or import: drops queued work, timers and parked deliveries, then waits. */
    async suspend(): Promise<void> {
      outbox.reset();
      // The events of the records a reset or import removes are not theirs to replay.
      eventLog.clear();
      engine.reset();
      await work.onIdle();
      await store.flush();
    },
    /** After an admin reset or import: reloads endpoints and picks up what the stores now hold. */
    async reload(): Promise<void> {
      engine.reset();
      await store.load();
      await outbox.recover();
      await engine.recover();
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;

/** A sink that hands every event to each of `sinks` in turn. */
export function combineSinks(...sinks: EventSink[]): EventSink {
  return {
    emit: async (event: DomainEvent) => void (await Promise.all(sinks.map((s) => s.emit(event)))),
    async stage(event: DomainEvent) {
      const staged = await Promise.all(sinks.map((s) => stageEvent(s, event)));
      return { ops: staged.flatMap((s) => s.ops), publish: () => staged.forEach((s) => s.publish()) };
    },
  };
}
