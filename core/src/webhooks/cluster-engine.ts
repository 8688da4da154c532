import { toTimestamp } from "../deps.js";
import { toAttemptOutcome, toGate, type Gate } from "./attempt-outcome.js";
import { MAX_IN_FLIGHT, type EngineDeps } from "./delivery-engine.js";
import type { PostResult } from "./http-attempt.js";
import { createInFlightSlots } from "./in-flight-slots.js";
import type { DeliveryRecord, EndpointRecord } from "./records.js";
import type { RedisSemaphore } from "./redis-semaphore.js";
import { sendAttempt } from "./send-attempt.js";
import type { SharedCircuit } from "./shared-circuit.js";
import type { SharedQueue } from "./shared-queue.js";
import type { Scheduler } from "./scheduler.js";
import type { DeliveryRef } from "./webhook-store.js";

/** What the engine of a cluster is built from: the local engine's parts, less timers, plus the shared ones. */
export interface ClusterEngineDeps extends Omit<EngineDeps, "scheduler"> {
  queue: SharedQueue;
  semaphore: RedisSemaphore;
  circuit: SharedCircuit;
  exclusive: <T>(endpointId: string, fn: () => Promise<T>) => Promise<T>;
  /** Injected timers (a manual scheduler in tests): they keep the delays instead of BullMQ. */
  timers?: Scheduler;
}

/** A job that comes due this much before its delivery's `next_attempt_at` still runs it (timer skew). */
const EARLY_MS = 1000;
/** When another process holds an endpoint's probe, the others look again after this. */
export const PROBE_RECHECK_MS = 1000;

/**
 * Runs deliveries for a cluster of processes on one Redis. Each attempt is a BullMQ job (the retry schedule
 * is delayed jobs; any process runs any attempt; a dead process's running jobs stall and run elsewhere),
 * `concurrency_limit` is a Redis semaphore with leases, and the circuit lives in the stored endpoint. A job
 * decides from the stored delivery under its lock, so a second job for the same attempt (a recovery, a
 * retry of a stalled job) finds it done and sends nothing: at least once, with the delivery id as the
 * `webhook-id` of every attempt.
 */
export function createClusterEngine(deps: ClusterEngineDeps) {
  const { store, clock, circuit } = deps;
  const inFlight = createInFlightSlots(deps.maxInFlight ?? MAX_IN_FLIGHT);
  let closed = false;
  const now = () => clock.now().getTime();

  const enqueue = (ref: DeliveryRef, dueAt: number, delay: number) =>
    deps.queue.add({ kind: "attempt", id: ref.id, endpoint_id: ref.endpoint_id }, `${ref.id}.${dueAt}`, delay);

  /**
   * Queues the attempt of `ref` due at `dueAt` as a delayed job; the job id makes a second plan for the same
   * moment a no-op. With injected timers (tests on a manual clock) the wait is theirs and the job is queued
   * when they fire.
   */
  async function schedule(ref: DeliveryRef, dueAt: number): Promise<void> {
    if (closed) return;
    const delay = dueAt - now();
    if (!deps.timers || delay <= 0) return enqueue(ref, dueAt, Math.max(0, delay));
    deps.timers.setTimeout(() => {
      if (!closed) deps.work.track(enqueue(ref, dueAt, 0).catch((error) => deps.onError(`queueing delivery ${ref.id}`, error)));
    }, delay);
  }

  /** Saves a delivery's new state; one of a deleted endpoint is dropped instead. */
  async function settle(delivery: DeliveryRecord, changes: Partial<DeliveryRecord>): Promise<void> {
    await store.saveDelivery({ ...delivery, ...changes, updated_at: toTimestamp(clock.now()) }, true);
  }

  /** Holds (no job: `resume` queues it again), waits for the circuit (a job at its end), or skips. */
  async function park(gate: Exclude<Gate, { kind: "send" }>, delivery: DeliveryRecord, ref: DeliveryRef): Promise<void> {
    if (gate.kind === "skip") return settle(delivery, { status: "skipped", next_attempt_at: null, skipped_reason: gate.reason });
    const until = gate.kind === "wait" ? Math.max(gate.until, now()) : null;
    const at = until === null ? null : toTimestamp(new Date(until));
    if (delivery.next_attempt_at !== at) await settle(delivery, { next_attempt_at: at });
    if (until !== null) await schedule(ref, until);
  }

  async function runLocked(ref: DeliveryRef): Promise<void> {
    const delivery = await store.readDelivery(ref.endpoint_id, ref.id);
    if (!delivery || delivery.status !== "pending") {
      if (!delivery) await store.dropPendingMarker(ref.id);
      return;
    }
    const due = delivery.next_attempt_at ? Date.parse(delivery.next_attempt_at) : null;
    // An older plan (a retry moved it, a crash came between saving the next attempt and queueing it):
    // the planned job stands, and is queued if it was lost.
    if (due !== null && due > now() + EARLY_MS) return schedule(ref, due);
    const endpoint = await store.fetchEndpoint(delivery.application_id, delivery.endpoint_id);
    if (!endpoint) return store.dropPendingMarker(ref.id);
    const gate = toGate(endpoint, delivery, false, now());
    if (gate.kind !== "send") return park(gate, delivery, ref);
    const probe = gate.probe ? await circuit.tryProbe(endpoint) : null;
    if (gate.probe && !probe) return park({ kind: "wait", until: now() + PROBE_RECHECK_MS }, delivery, ref);
    try {
      await attempt(endpoint, delivery, ref, probe !== null);
    } finally {
      if (probe) await circuit.endProbe(endpoint.id, probe);
    }
  }

  /**
   * One attempt in one of the endpoint's slots across the cluster. The endpoint is read again inside the
   * slot: while this waited, another process may have opened the circuit or paused the endpoint.
   */
  async function attempt(endpoint: EndpointRecord, delivery: DeliveryRecord, ref: DeliveryRef, probe: boolean): Promise<void> {
    type Parked = Exclude<Gate, { kind: "send" }>;
    type Sent = { gone: true } | { gate: Parked } | { started: Date; current: EndpointRecord; result: PostResult };
    const sent = await deps.semaphore.run(endpoint.id, endpoint.concurrency_limit, () =>
      inFlight.run(async (): Promise<Sent> => {
        const current = await store.fetchEndpoint(endpoint.application_id, endpoint.id);
        if (!current) return { gone: true };
        const again = toGate(current, delivery, false, now());
        // Someone else's probe is out (half-open): this one waits for its result.
        if (again.kind === "send" && again.probe && !probe) return { gate: { kind: "wait", until: now() + PROBE_RECHECK_MS } };
        if (again.kind !== "send") return { gate: again };
        const started = clock.now();
        return { started, current, result: await sendAttempt(deps, current, delivery, started) };
      }),
    );
    if ("gone" in sent) return store.dropPendingMarker(ref.id);
    if ("gate" in sent) return park(sent.gate, delivery, ref);
    const outcome = toAttemptOutcome(delivery, sent.result, sent.started, now(), deps.retrySchedule, deps.ids.random);
    await settle(delivery, outcome.changes);
    await circuit.record(sent.current, outcome.ok, probe, outcome.gone);
    if (outcome.nextAt !== null) await schedule(ref, outcome.nextAt);
  }

  return {
    schedule,
    /** Runs one attempt job (any process's worker). */
    async run(ref: DeliveryRef): Promise<void> {
      await deps.lock.withLock(`webhook-delivery:${ref.id}`, () => runLocked(ref));
    },
    /** Queues again every pending delivery of an endpoint (it became active, or its circuit closed). */
    async resume(endpointId: string): Promise<void> {
      const refs = (await store.pendingRefs()).filter((r) => r.endpoint_id === endpointId);
      const at = now();
      await Promise.all(refs.map((ref) => schedule(ref, at)));
    },
    /** Runs a change of one endpoint alone across the cluster. */
    exclusive: deps.exclusive,
    /** The limit is read from the stored endpoint at each attempt. */
    setConcurrency(): void {},
    forget(): void {},
    /**
     * Queues every pending delivery at its planned time after a start; where that job is still queued or
     * running (another process), nothing is added.
     */
    async recover(): Promise<number> {
      const refs = await store.pendingRefs();
      for (const ref of refs) {
        const delivery = await store.readDelivery(ref.endpoint_id, ref.id);
        if (!delivery || delivery.status !== "pending") await store.dropPendingMarker(ref.id);
        else await schedule(ref, delivery.next_attempt_at ? Date.parse(delivery.next_attempt_at) : now());
      }
      return refs.length;
    },
    /** Stops taking jobs; attempts in flight finish and are saved, waiting ones go back to the queue. */
    async close(): Promise<void> {
      closed = true;
      deps.semaphore.close();
      // No new job is taken; the attempts running finish and are saved before the worker goes.
      await Promise.race([deps.queue.pause(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      await deps.work.onIdle();
      await deps.queue.close();
      await store.flush();
    },
    reset(): void {},
    get closed() {
      return closed;
    },
  };
}

export type ClusterEngine = ReturnType<typeof createClusterEngine>;
