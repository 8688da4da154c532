import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { Lock } from "../ports/lock.js";
import type { AddressGuard } from "./address-guard.js";
import type { Poster, PostResult } from "./http-attempt.js";
import { toAttemptOutcome, toGate, type Gate } from "./attempt-outcome.js";
import type { DeliveryRecord, EndpointRecord } from "./records.js";
import { createCircuitKeeper } from "./circuit-keeper.js";
import { createInFlightSlots, type InFlightSlots } from "./in-flight-slots.js";
import type { Scheduler, TimerHandle } from "./scheduler.js";
import { nextRetryDelay } from "./retry-policy.js";
import { createRunLanes, RUNS_PER_SLOT } from "./run-lanes.js";
import { sendAttempt } from "./send-attempt.js";
import type { DeliveryRef, WebhookStore } from "./webhook-store.js";
import type { WorkTracker } from "./work-tracker.js";

/** What the engine is built from. */
export interface EngineDeps {
  store: WebhookStore;
  clock: Clock;
  ids: IdSource;
  lock: Lock;
  scheduler: Scheduler;
  post: Poster;
  guard: AddressGuard;
  retrySchedule: readonly number[];
  timeoutMs: number;
  monotonic: () => number;
  work: WorkTracker;
  onError: (what: string, error: unknown) => void;
  /** Attempts in flight across every endpoint at once; default {@link MAX_IN_FLIGHT}. */
  maxInFlight?: number;
}

/**
 * Requests in flight across all endpoints. Each endpoint has its own `concurrency_limit`; this bounds
 * the sum, so an event fanned out to thousands of endpoints opens a few hundred sockets, not thousands.
 */
export const MAX_IN_FLIGHT = 256;

/**
 * Runs deliveries in one process: slots per endpoint at its `concurrency_limit`, timers (from the injected
 * scheduler) for future attempts, and the endpoint's circuit. Every decision reads the stored delivery
 * under its lock, so a timer, a retry and a recovery can race without sending twice. A token per
 * delivery makes the latest `schedule` the only one that counts.
 */
export function createDeliveryEngine(deps: EngineDeps) {
  const { store, clock } = deps;
  const queues = new Map<string, InFlightSlots>();
  const timers = new Map<string, TimerHandle>();
  const tokens = new Map<string, number>();
  const inFlight = createInFlightSlots(deps.maxInFlight ?? MAX_IN_FLIGHT);
  let closed = false;
  const now = () => clock.now().getTime();
  const circuits = createCircuitKeeper({ store, clock, scheduler: deps.scheduler, wake: (ref) => schedule(ref, now()), onError: deps.onError });
  // Runs due now, per endpoint: a few per slot in progress (reading, waiting for a slot, settling), the rest
  // wait as their ref and token, in order.
  const lanes = createRunLanes<{ ref: DeliveryRef; token: number }>({
    width: (endpointId) => RUNS_PER_SLOT * (store.endpoint(endpointId)?.concurrency_limit ?? 1),
    runOne: ({ ref, token }) => run(ref, token).catch((error) => deps.onError(`delivery ${ref.id}`, error)),
    track: (work) => deps.work.track(work),
  });

  function queueFor(endpoint: EndpointRecord): InFlightSlots {
    let queue = queues.get(endpoint.id);
    if (!queue) queues.set(endpoint.id, (queue = createInFlightSlots(endpoint.concurrency_limit)));
    return queue;
  }

  /** Makes `ref` run at `dueAt` (ms; now or earlier runs at once), replacing any earlier plan for it. */
  function schedule(ref: DeliveryRef, dueAt: number): void {
    if (closed) return;
    const token = (tokens.get(ref.id) ?? 0) + 1;
    tokens.set(ref.id, token);
    timers.get(ref.id)?.cancel();
    timers.delete(ref.id);
    const delay = dueAt - now();
    if (delay <= 0) return enqueue(ref, token);
    timers.set(ref.id, deps.scheduler.setTimeout(() => {
      timers.delete(ref.id);
      enqueue(ref, token);
    }, delay));
  }

  function enqueue(ref: DeliveryRef, token: number): void {
    if (!closed) lanes.add(ref.endpoint_id, { ref, token });
  }

  async function run(ref: DeliveryRef, token: number): Promise<void> {
    // Stale runs (a newer schedule, a reset, a close) lapse here.
    if (closed || tokens.get(ref.id) !== token) return;
    await deps.lock.withLock(`webhook-delivery:${ref.id}`, async () => {
      if (closed || tokens.get(ref.id) !== token) return;
      await runLocked(ref);
      // A run that lapsed in a close leaves the delivery covered by its outbox entry, for the next start.
      if (closed) return;
      const ending = store.endCover(ref.id);
      if (ending) await ending;
    });
  }

  /** One run of a delivery under its lock: read, gate, then attempt, park or settle. */
  async function runLocked(ref: DeliveryRef): Promise<void> {
    // A pending delivery kept in memory is taken at once, without a read's wait.
    const delivery = store.pendingDelivery(ref.endpoint_id, ref.id) ?? (await store.readDelivery(ref.endpoint_id, ref.id));
    if (!delivery || delivery.status !== "pending") {
      if (!delivery) await store.dropPendingMarker(ref.id);
      return;
    }
    const endpoint = store.endpoint(ref.endpoint_id);
    if (!endpoint) return settle(delivery, {});
    const gate = toGate(endpoint, delivery, circuits.isProbing(endpoint.id), now());
    if (gate.kind !== "send") return park(gate, endpoint, delivery, ref);
    if (gate.probe) circuits.startProbe(endpoint);
    try {
      await attempt(endpoint, delivery, ref, gate.probe);
    } finally {
      if (gate.probe) circuits.endProbe(endpoint.id);
    }
  }

  /** Holds, parks or skips a delivery the gate did not let through. */
  async function park(gate: Exclude<Gate, { kind: "send" }>, endpoint: EndpointRecord, delivery: DeliveryRecord, ref: DeliveryRef): Promise<void> {
    if (gate.kind === "skip") return settle(delivery, { status: "skipped", next_attempt_at: null, skipped_reason: gate.reason });
    circuits.park(gate.kind === "hold" ? "held" : "waiting", endpoint, ref);
    const at = gate.kind === "wait" && gate.until > now() ? toTimestamp(new Date(gate.until)) : null;
    if (delivery.next_attempt_at !== at) await settle(delivery, { next_attempt_at: at });
  }

  /** Saves a delivery's new state; one of a deleted endpoint is dropped instead (its history went with it). */
  function settle(delivery: DeliveryRecord, changes: Partial<DeliveryRecord>): Promise<void> {
    if (!store.endpoint(delivery.endpoint_id)) {
      tokens.delete(delivery.id);
      return store.dropPendingMarker(delivery.id);
    }
    const next = { ...delivery, ...changes, updated_at: toTimestamp(clock.now()) };
    if (next.status !== "pending") tokens.delete(delivery.id);
    return store.saveDelivery(next, delivery.status === "pending");
  }

  /**
   * One attempt. Only the HTTP exchange takes a slot of the endpoint's queue, so recording a result never
   * holds back the next request. The gate is checked again inside the slot: while this delivery waited
   * for it, the circuit may have opened or the endpoint been paused. One closed meanwhile lapses: the
   * delivery stays stored, pending, for the next start.
   */
  async function attempt(endpoint: EndpointRecord, delivery: DeliveryRecord, ref: DeliveryRef, probe: boolean): Promise<void> {
    // The endpoint's slot, then one of the engine's: taken and given back here, with no closure per attempt.
    const slots = queueFor(endpoint);
    const slotWait = slots.acquire();
    if (slotWait) await slotWait;
    let sent: { lapsed: true } | { gate: Exclude<Gate, { kind: "send" }> } | { started: Date; result: PostResult };
    try {
      const anyWait = inFlight.acquire();
      if (anyWait) await anyWait;
      try {
        sent = await inSlots(endpoint, delivery, probe);
      } finally {
        inFlight.release();
      }
    } finally {
      slots.release();
    }
    if ("lapsed" in sent) return;
    if ("gate" in sent) return park(sent.gate, endpoint, delivery, ref);
    const outcome = toAttemptOutcome(delivery, sent.result, sent.started, now(), deps.retrySchedule, deps.ids.random);
    try {
      await settle(delivery, outcome.changes);
    } catch (error) {
      // The attempt's record was not stored: the delivery stays pending as stored (the store's copy went
      // back to it), and is sent again on the schedule, with the same webhook-id: never reported done.
      schedule(ref, now() + (nextRetryDelay(deps.retrySchedule, delivery.scheduled_attempts + 1, deps.ids.random) ?? deps.retrySchedule.at(-1) ?? 0));
      throw error;
    }
    circuits.record(endpoint.id, outcome.ok, probe, outcome.gone);
    if (outcome.nextAt !== null) schedule(ref, outcome.nextAt);
  }

  /** The part of an attempt inside its slots: the gate checked again, then the request. */
  async function inSlots(endpoint: EndpointRecord, delivery: DeliveryRecord, probe: boolean) {
    if (closed) return { lapsed: true } as const;
    const current = store.endpoint(endpoint.id);
    const again = current ? toGate(current, delivery, !probe && circuits.isProbing(current.id), now()) : null;
    if (!current || !again) return { gate: { kind: "skip", reason: "endpoint_deleted" } as const };
    if (again.kind !== "send") return { gate: again };
    const started = clock.now();
    const result = await sendAttempt(deps, current, delivery, started);
    return { started, result };
  }

  return {
    schedule,
    /** Sends what an endpoint held or parked: after it became active again (verification). */
    resume: (endpointId: string) => circuits.resume(endpointId),
    setConcurrency(endpointId: string, limit: number): void {
      queues.get(endpointId)?.setLimit(limit);
      lanes.setWidth(endpointId, RUNS_PER_SLOT * limit);
    },
    exclusive: <T>(_endpointId: string, fn: () => Promise<T>): Promise<T> => fn(),
    /** Forgets an endpoint that was deleted: nothing of it runs any more. */
    forget(endpointId: string): void {
      queues.delete(endpointId);
      circuits.forget(endpointId);
    },
    /** Picks up every pending delivery after a start: the markers say which. */
    async recover(): Promise<number> {
      const refs = await store.pendingRefs();
      for (const ref of refs) {
        const delivery = await store.readDelivery(ref.endpoint_id, ref.id);
        if (!delivery || delivery.status !== "pending") await store.dropPendingMarker(ref.id);
        else schedule(ref, delivery.next_attempt_at ? Date.parse(delivery.next_attempt_at) : now());
      }
      return refs.length;
    },
    /** Stops timers; queued runs lapse, attempts in flight finish (and are saved). */
    async close(): Promise<void> {
      closed = true;
      for (const timer of timers.values()) timer.cancel();
      timers.clear();
      circuits.forget();
      await deps.work.onIdle();
      await store.flush();
    },
    /** Forgets all in-memory state (after an admin reset or import). */
    reset(): void {
      for (const timer of timers.values()) timer.cancel();
      timers.clear();
      tokens.clear();
      queues.clear();
      circuits.forget();
    },
    get closed() {
      return closed;
    },
  };
}

/** What the outbox and the developer-plane operations ask of an engine, in one process or a cluster. */
export interface DeliveryEngine {
  /** Makes `ref` run at `dueAt` (ms). */
  schedule(ref: DeliveryRef, dueAt: number): void | Promise<void>;
  /** Sends what an endpoint held or parked (it became active again). */
  resume(endpointId: string): void | Promise<void>;
  setConcurrency(endpointId: string, limit: number): void;
  /**
   * Runs a read-change-write of one endpoint so no other change of it interleaves: across the cluster on
   * Redis; in one process the engine changes endpoints in memory at once, so `fn` runs as it is.
   */
  exclusive<T>(endpointId: string, fn: () => Promise<T>): Promise<T>;
  forget(endpointId: string): void;
  recover(): Promise<number>;
  close(): Promise<void>;
  reset(): void;
  readonly closed: boolean;
}
