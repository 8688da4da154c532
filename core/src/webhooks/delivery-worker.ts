import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { Database } from "../db/database.js";
import { isUnreadableRow, type UnreadableRowError } from "../db/unreadable-rows.js";
import { CLAIM_ENDED, createWorker, type ClaimFunction, type Lease, type Worker } from "../db/worker.js";
import { toAttemptOutcome, toEndpointAfterAttempt, toGate } from "./attempt-outcome.js";
import { DELIVERY_LEASE_MS, DELIVERY_QUEUE, type ClaimedDelivery, type DeliveryClaims } from "./delivery-claims.js";
import type { DeliveryRepository } from "./delivery-repository.js";
import type { DeliveryState } from "./delivery-rows.js";
import type { EndpointRepository } from "./endpoint-repository.js";
import type { PostResult } from "./http-attempt.js";
import type { DeliveryRecord, DeliveryTarget } from "./records.js";
import { isWaiting } from "./retry-policy.js";
import type { Scheduler } from "./scheduler.js";
import { sendAttempt, type SendDeps } from "./send-attempt.js";

/**
 * Attempts in flight at once in one process, across endpoints (each endpoint has its own `concurrency_limit`,
 * which the claim keeps across processes): a fan-out to thousands of endpoints opens this many sockets, not thousands.
 */
export const DELIVERY_CONCURRENCY = 64;

/** What the delivery worker is built from. */
export interface DeliveryWorkerDeps {
  database: Database;
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  claims: DeliveryClaims;
  clock: Clock;
  ids: IdSource;
  scheduler: Scheduler;
  /** This process's id: the `lease_owner` of what it claims. */
  owner: string;
  send: SendDeps;
  retrySchedule: readonly number[];
  concurrency?: number;
  /** How long a claim of a delivery holds unless renewed; default {@link DELIVERY_LEASE_MS}. */
  leaseMs?: number;
  onError: (what: string, error: unknown) => void;
}

/**
 * The worker of webhook deliveries: the deliveries table is its queue, claimed by the repository's own claim
 * (each endpoint's `concurrency_limit` and circuit, across processes). A run sends one signed attempt through
 * the poster, then records it, the delivery's next state (the retry schedule) and the endpoint's circuit in
 * one transaction, only while the claim is still this process's; that transaction ends the claim. A
 * delivery whose endpoint is paused or unverified is held (no due time), one of a disabled endpoint skipped.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps): Worker {
  const { database, endpoints, deliveries, claims, clock, owner } = deps;
  const iso = (ms: number) => toTimestamp(new Date(ms));
  // What the last claim answered per delivery (its record, whether it probes, and its endpoint as the claim's
  // transaction read it: absent when deleted, an error when damaged), for the run that follows it.
  const claimed = new Map<string, ClaimedDelivery & { endpoint: DeliveryTarget | UnreadableRowError | undefined }>();

  const claim: ClaimFunction = async (db, _table, options) => {
    const taken = await db.transaction(async (tx) => {
      const due = await claims.claimDue(tx, options);
      // The endpoints of the whole batch in one statement: the read each attempt needs before it is sent.
      const targets = await endpoints.targets(tx, [...new Set(due.map((c) => c.delivery.endpoint_id))]);
      return due.map((c) => ({ ...c, endpoint: targets.get(c.delivery.endpoint_id) }));
    });
    for (const c of taken) claimed.set(c.delivery.id, c);
    return taken.map((c) => c.delivery.id);
  };

  async function run(key: string, lease: Lease): Promise<typeof CLAIM_ENDED> {
    const found = claimed.get(key);
    claimed.delete(key);
    const delivery = found?.delivery ?? (await deliveries.get(database.db, key));
    // Gone with its endpoint (a delete cascades): nothing is left to record.
    if (!delivery) return CLAIM_ENDED;
    const read = found ? found.endpoint : (await endpoints.targets(database.db, [delivery.endpoint_id])).get(delivery.endpoint_id);
    // A damaged endpoint: the worker ends the claim with the delivery not due (the read named the row once).
    if (isUnreadableRow(read)) throw read;
    let endpoint = read ?? null;
    if (endpoint && toGate(endpoint, delivery).kind !== "send") endpoint = await settleUnsent(delivery, lease);
    if (!endpoint) return CLAIM_ENDED;
    const started = clock.now();
    const result = await sendAttempt(deps.send, endpoint, delivery, started);
    lease.assertHeld();
    await record(delivery, endpoint.id, found?.probe ?? endpoint.circuit.state !== "closed", started, result);
    return CLAIM_ENDED;
  }

  /**
   * Holds or skips a delivery its endpoint's status does not let out, deciding again on the endpoint read under
   * its lock; answers the endpoint when a verification committed since lets it out now (the claim is kept).
   */
  async function settleUnsent(delivery: DeliveryRecord, lease: Lease): Promise<DeliveryTarget | null> {
    lease.assertHeld();
    return database.transaction(async (tx) => {
      const endpoint = await endpoints.lockTarget(tx, delivery.endpoint_id);
      if (!endpoint) return null;
      const gate = toGate(endpoint, delivery);
      if (gate.kind === "send") return endpoint;
      const at = toTimestamp(clock.now());
      const skip = gate.kind === "skip";
      const state: DeliveryState = { ...delivery, status: skip ? "skipped" : "pending", skipped_reason: skip ? gate.reason : null, next_attempt_at: null, updated_at: at };
      await claims.releaseClaim(tx, delivery.id, owner, state);
      return null;
    });
  }

  /**
   * Records an attempt: the endpoint locked first (then the delivery, the order a delete takes them), the
   * attempt and the delivery's next state written only if the claim is still ours, then the circuit. A circuit
   * that opens makes the endpoint's due deliveries due when it may probe; one that disables the endpoint skips them.
   */
  async function record(delivery: DeliveryRecord, endpointId: string, probe: boolean, started: Date, result: PostResult): Promise<void> {
    await database.transaction(async (tx) => {
      const endpoint = await endpoints.lockTarget(tx, endpointId);
      if (!endpoint) return;
      const nowMs = clock.now().getTime();
      const at = iso(nowMs);
      const outcome = toAttemptOutcome(delivery, result, started, nowMs, deps.retrySchedule, deps.ids.random);
      const attempts = outcome.changes.attempts!;
      const state: DeliveryState = { ...delivery, ...outcome.changes, updated_at: at };
      if (!(await claims.recordAttempt(tx, delivery.id, owner, attempts[attempts.length - 1], state))) return;
      const after = toEndpointAfterAttempt(endpoint, outcome, probe, nowMs);
      if (!after) return;
      await endpoints.update(tx, endpointId, { ...after, updated_at: at });
      if (after.status === "disabled") await claims.skipDue(tx, endpointId, "endpoint_disabled", at);
      else if (isWaiting(after.circuit, at)) await claims.deferDue(tx, endpointId, after.circuit.opens_until!, at);
    });
  }

  const worker = createWorker({
    database,
    table: DELIVERY_QUEUE,
    owner,
    clock,
    scheduler: deps.scheduler,
    leaseMs: deps.leaseMs ?? DELIVERY_LEASE_MS,
    concurrency: deps.concurrency ?? DELIVERY_CONCURRENCY,
    claim,
    // The claim's own look: a delivery its endpoint's concurrency_limit or open circuit holds back is due
    // only when that lets it out, so a full endpoint arms one timer for its first lease to lapse rather than
    // claims that take nothing.
    nextDueAt: (db, _table, now) => claims.nextDueAt(db.db, now),
    run,
    onError: (key, error) => deps.onError(key === null ? "claiming deliveries" : `delivery ${key}`, error),
  });
  return {
    wake: () => worker.wake(),
    onIdle: () => worker.onIdle(),
    get pending() {
      return worker.pending;
    },
    names: () => worker.names(),
    async close() {
      await worker.close();
      claimed.clear();
    },
  };
}
