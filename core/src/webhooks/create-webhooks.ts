import type { ChangeMark } from "../db/change-mark.js";
import type { Clock, IdSource } from "../deps.js";
import { afterCommit, type Database } from "../db/database.js";
import type { UnreadableRows } from "../db/unreadable-rows.js";
import type { DomainEvent, EventSink } from "../events/event-sink.js";
import type { CursorCodec } from "../lists/cursor.js";
import { createAddressGuard, dnsResolveHost, type ResolveHost } from "./address-guard.js";
import { createDeliveryClaims } from "./delivery-claims.js";
import { createDeliveryRepository } from "./delivery-repository.js";
import { createDeliveryWorker } from "./delivery-worker.js";
import { createEndpointRepository } from "./endpoint-repository.js";
import { createEndpointsService, DEFAULT_MAX_ENDPOINTS } from "./endpoints-service.js";
import { createEventRecorder } from "./event-recorder.js";
import { createEventReplay, DEFAULT_EVENT_RETENTION_MS, type ReplayWindow } from "./event-replay.js";
import { createEventRetention } from "./event-retention.js";
import { fetchPoster, type FetchLike, type Poster } from "./http-attempt.js";
import { createHttpPoster } from "./http-poster.js";
import { createGuardedPoster } from "./public-lookup.js";
import { DEFAULT_RETRY_SCHEDULE } from "./retry-policy.js";
import { realScheduler, type Scheduler } from "./scheduler.js";

/** Settings of the webhook engine a caller may change; tests shorten the timeouts. */
export interface WebhookOptions {
  /**
   * Sends the requests through this fetch instead of the engine's own HTTP client (node:http with kept-alive
   * sockets; with `publicOnly`, one whose sockets connect only to public addresses, resolved with
   * `resolveHost`, so DNS rebinding fails the attempt).
   */
  fetch?: FetchLike;
  /** Timers of future attempts (the worker's next due time) and lease renewals; real timers by default, a manual scheduler in tests. */
  scheduler?: Scheduler;
  /** Delays before attempts 1, 2, … in ms. Default: DESIGN §9. */
  retrySchedule?: readonly number[];
  /** Refuse receivers on private, loopback, link-local and metadata addresses (`lp serve --public`). */
  publicOnly?: boolean;
  /** Resolves host names for `publicOnly` (node:dns by default). */
  resolveHost?: ResolveHost;
  /** Most endpoints per application, default 100 (`lp serve --max-endpoints`); over it, 403 quota_exceeded. */
  maxEndpoints?: number;
  /** How long events are kept for replay, by the core's clock; default 7 days (`lp serve --event-retention`). */
  eventRetentionMs?: number;
  /** Per-attempt timeout, default 15 s. */
  deliveryTimeoutMs?: number;
  /** Verification bound, default 10 s. */
  verificationTimeoutMs?: number;
  /** Attempts in flight at once in this process, across endpoints (default `DELIVERY_CONCURRENCY`). */
  concurrency?: number;
  /** How long a claim of a delivery holds unless renewed; default `DELIVERY_LEASE_MS` (30 s). */
  leaseMs?: number;
  /** Monotonic milliseconds for latency; `performance.now` by default. */
  monotonic?: () => number;
  /** Where background failures are reported. Default: stderr. */
  onError?: (what: string, error: unknown) => void;
}

/** What the core hands the webhook engine. */
export interface WebhookDeps extends WebhookOptions {
  database: Database;
  cursors: CursorCodec;
  clock: Clock;
  ids: IdSource;
  /** Names in the log, once each, the rows a read cannot take as their resource. */
  unreadableRows?: UnreadableRows;
}

/**
 * Builds the webhook engine over the database: the event sink every service records to (events and their
 * deliveries written in the change's transaction), the developer-plane operations, replay, and one delivery
 * worker that claims due deliveries (the deliveries table is its queue) and attempts them. Call `start()`
 * once: the worker then takes what a previous run left due.
 */
export function createWebhooks(deps: WebhookDeps) {
  // One line per problem, never a stack trace: an operator reads these in a log, not a debugger.
  const onError = deps.onError ?? ((what: string, error: unknown) => console.error(`[lp] webhooks: ${what} failed: ${error instanceof Error ? error.message : String(error)}`));
  const resolveHost = deps.resolveHost ?? dnsResolveHost;
  const post: Poster = deps.fetch ? fetchPoster(deps.fetch) : deps.publicOnly ? createGuardedPoster(resolveHost) : createHttpPoster();
  const monotonic = deps.monotonic ?? (() => performance.now());
  // Checked before each attempt too (a clear error early); the guarded fetch checks again at connect.
  const guard = createAddressGuard(deps.publicOnly ?? false, resolveHost);
  const { database, clock, ids } = deps;
  const scheduler = deps.scheduler ?? realScheduler;
  const retentionMs = deps.eventRetentionMs ?? DEFAULT_EVENT_RETENTION_MS;
  const endpoints = createEndpointRepository(database.dialect, deps.unreadableRows);
  const deliveries = createDeliveryRepository(deps.unreadableRows);
  const claims = createDeliveryClaims(database.dialect, deps.unreadableRows);
  const worker = createDeliveryWorker({
    database,
    endpoints,
    deliveries,
    claims,
    clock,
    ids,
    scheduler,
    // Leases name this process: another one takes over what it held once its leases lapse.
    owner: ids.uuid(),
    send: { post, guard, timeoutMs: deps.deliveryTimeoutMs ?? 15_000, monotonic },
    retrySchedule: deps.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    concurrency: deps.concurrency,
    leaseMs: deps.leaseMs,
    onError,
  });
  let open = true;
  const wake = () => void (open && worker.wake());
  const recorder = createEventRecorder({ database, endpoints, deliveries, clock, ids, wake, onError });
  const replays = createEventReplay({ database, endpoints, deliveries, clock, ids, retentionMs, wake });
  const retention = createEventRetention({ database, deliveries, clock, scheduler, retentionMs, onError });
  const endpointsService = createEndpointsService({
    database,
    endpoints,
    deliveries,
    claims,
    recorder,
    guard,
    cursors: deps.cursors,
    clock,
    ids,
    wake,
    maxEndpoints: deps.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS,
    challenge: { clock, ids, post, guard, timeoutMs: deps.verificationTimeoutMs ?? 10_000, monotonic },
  });

  /** Resolves when no emit is being recorded, no claim is under way and no attempt runs (later retries do not count). */
  async function onIdle(): Promise<void> {
    do {
      await recorder.settled();
      await worker.onIdle();
      await retention.idle();
    } while (recorder.busy || worker.pending > 0);
  }

  return {
    /** The sink the services record their events to. */
    sink: recorder.sink,
    endpoints: endpointsService,
    /** Makes a new delivery to endpoint `id` of each kept event in the window it would have been sent (admin API). */
    replay: (endpointId: string, window: ReplayWindow, change?: ChangeMark) => replays.replay(endpointId, window, change),
    /**
     * Starts taking due deliveries (what a previous run left too) and the retention of events. With `left`
     * false (no delivery stored: a new database), there is nothing to free or take yet: the first commit of a
     * delivery wakes the worker.
     */
    async start(options: { left?: boolean } = {}): Promise<void> {
      const left = options.left !== false;
      // On SQLite the database is this process's alone (its data dir is locked): an attempt a stopped process
      // held is due again now, not at its lease's end (a retry, as any attempt cut short is).
      if (left && database.dialect === "sqlite") {
        await database.db.updateTable("webhook_deliveries").set({ lease_owner: null, lease_expires_at: null }).where("lease_owner", "is not", null).execute();
      }
      retention.start();
      if (left) wake();
    },
    onIdle,
    /** Attempts in flight, by delivery id. */
    names: () => worker.names(),
    /** Stops claiming and timers, and waits for the attempts in flight. Pending deliveries stay stored, due. */
    async close(): Promise<void> {
      open = false;
      await recorder.settled();
      await retention.stop();
      await worker.close();
    },
    /** Before an admin reset or import: lets what runs finish. */
    suspend: () => onIdle(),
    /** After the tables were replaced another way (a whole-database import): takes what is due now. */
    async reload(): Promise<void> {
      wake();
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;

/**
 * A sink that hands every event to each of `sinks` in turn. In a change's transaction (`record`), the sinks
 * that store events record it there; the others are told once it has committed (never of a change rolled
 * back), so what they read of the change, or tell other processes to read, is there on either engine.
 */
export function combineSinks(...sinks: EventSink[]): EventSink {
  return {
    emit: async (event: DomainEvent) => void (await Promise.all(sinks.map((s) => s.emit(event)))),
    async record(tx, event) {
      for (const sink of sinks) {
        if (sink.record) await sink.record(tx, event);
        else afterCommit(tx, () => void sink.emit(event).catch(() => {}));
      }
    },
  };
}
