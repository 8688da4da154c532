import type { Storage } from "unstorage";
import type { AccountsService } from "../accounts/accounts-service.js";
import type { Clock, IdSource } from "../deps.js";
import type { DomainEvent, EventSink } from "../events/event-sink.js";
import type { CursorCodec } from "../lists/cursor.js";
import type { IndexRegistry } from "../lists/index-registry.js";
import type { Lock } from "../ports/lock.js";
import { createAddressGuard, dnsResolveHost, type ResolveHost } from "./address-guard.js";
import { createDeliveryEngine } from "./delivery-engine.js";
import { createEndpointsService, DEFAULT_MAX_ENDPOINTS } from "./endpoints-service.js";
import { createEventOutbox } from "./event-outbox.js";
import { createGuardedFetch } from "./guarded-fetch.js";
import type { FetchLike } from "./http-attempt.js";
import { DEFAULT_RETRY_SCHEDULE } from "./retry-policy.js";
import { realScheduler, type Scheduler } from "./scheduler.js";
import { createWebhookStore } from "./webhook-store.js";
import { createWorkTracker } from "./work-tracker.js";

/** Settings of the webhook engine a caller may change; tests shorten the timeouts. */
export interface WebhookOptions {
  /**
   * Sends the requests. By default the global fetch, or with `publicOnly` a fetch whose sockets connect
   * only to public addresses (resolved with `resolveHost`), so DNS rebinding fails the attempt.
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
  /** Per-attempt timeout, default 15 s. */
  deliveryTimeoutMs?: number;
  /** Verification bound, default 10 s. */
  verificationTimeoutMs?: number;
  /** Monotonic milliseconds for latency; `performance.now` by default. */
  monotonic?: () => number;
  /** Where background failures are reported. Default: stderr. */
  onError?: (what: string, error: unknown) => void;
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
}

/**
 * Builds the webhook engine: the event sink every service emits to, the developer-plane operations,
 * and the delivery engine behind them. Call `start()` once to pick up work a previous run left.
 */
export function createWebhooks(deps: WebhookDeps) {
  const onError = deps.onError ?? ((what: string, error: unknown) => console.error(`[lp] webhooks: ${what} failed:`, error));
  const resolveHost = deps.resolveHost ?? dnsResolveHost;
  const fetchImpl: FetchLike = deps.fetch ?? (deps.publicOnly ? createGuardedFetch(resolveHost) : (input, init) => globalThis.fetch(input, init));
  const monotonic = deps.monotonic ?? (() => performance.now());
  // Checked before each attempt too (a clear error early); the guarded fetch checks again at connect.
  const guard = createAddressGuard(deps.publicOnly ?? false, resolveHost);
  const store = createWebhookStore(deps.storage, deps.indexes);
  const work = createWorkTracker();
  const common = { clock: deps.clock, ids: deps.ids };
  const engine = createDeliveryEngine({
    ...common,
    store,
    lock: deps.lock,
    scheduler: deps.scheduler ?? realScheduler,
    fetch: fetchImpl,
    guard,
    retrySchedule: deps.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    timeoutMs: deps.deliveryTimeoutMs ?? 15_000,
    monotonic,
    work,
    onError,
  });
  const outbox = createEventOutbox({ ...common, store, accounts: deps.accounts, engine, work, onError });
  const endpoints = createEndpointsService({
    ...common,
    store,
    engine,
    guard,
    cursors: deps.cursors,
    lock: deps.lock,
    maxEndpoints: deps.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS,
    challenge: { ...common, fetch: fetchImpl, guard, timeoutMs: deps.verificationTimeoutMs ?? 10_000, monotonic },
  });

  return {
    /** The sink the services emit to. */
    sink: outbox.sink,
    endpoints,
    /** Loads endpoints and picks up unfinished fan-outs and pending deliveries. */
    async start(): Promise<{ events: number; deliveries: number }> {
      await store.load();
      const events = await outbox.recover();
      const deliveries = await engine.recover();
      return { events, deliveries };
    },
    /** Resolves when no fan-out or attempt is queued or running (future retries do not count). */
    async onIdle(): Promise<void> {
      await work.onIdle();
      await store.flush();
    },
    /** Stops timers and queued work and waits for attempts in flight. Pending work stays stored. */
    close: () => engine.close(),
    /** Before an admin reset or import: drops queued work, timers and parked deliveries, then waits. */
    async suspend(): Promise<void> {
      outbox.reset();
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
  return { emit: async (event: DomainEvent) => void (await Promise.all(sinks.map((s) => s.emit(event)))) };
}
