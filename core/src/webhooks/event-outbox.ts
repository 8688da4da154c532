import type { AccountsService } from "../accounts/accounts-service.js";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { DomainEvent, EventSink } from "../events/event-sink.js";
import { StorageFaultError } from "../storage/storage-faults.js";
import { whenWritable, type FanOutHealth } from "./when-writable.js";
import type { DeliveryEngine } from "./delivery-engine.js";
import type { SharedQueue } from "./shared-queue.js";
import { toOrderedId } from "./ordered-id.js";
import { toNewDelivery, type DeliveryRecord, type EndpointRecord, type EventRecord } from "./records.js";
import type { EventLog } from "./event-log.js";
import type { WebhookStore } from "./webhook-store.js";
import type { WorkTracker } from "./work-tracker.js";

/** What the outbox needs. */
export interface OutboxDeps {
  store: WebhookStore;
  accounts: Pick<AccountsService, "get" | "getApp">;
  clock: Clock;
  ids: IdSource;
  engine: DeliveryEngine;
  work: WorkTracker;
  onError: (what: string, error: unknown) => void;
  /** In a cluster: each event's fan-out is a job on this queue, run by one process (another if it dies). */
  shared?: SharedQueue;
  /** Whether the storage refuses writes now, and a call when it takes them again (in one process). */
  health?: FanOutHealth;
  /** Where every emitted event is kept for replay, subscribed to or not. */
  log?: EventLog;
}

/** Endpoints whose deliveries are stored at once before the fan-out yields to other work. */
export const FAN_OUT_BATCH = 100;

/** Events whose fan-outs run together when several are queued (a burst of API writes). */
export const FAN_OUT_EVENTS = 32;

/**
 * A fan-out waiting for its round: the event, whether it is a recovery's, the reset generation it was queued
 * in, and whether the event is held already (by an earlier fan-out of it that the storage refused).
 */
interface QueuedFanOut {
  event: EventRecord;
  recovering: boolean;
  generation: number;
  holding?: boolean;
}

/** The job id of an event's fan-out: one job per event however many processes queue it. */
const fanOutJobId = (eventId: string) => `fan.${eventId}`;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The {@link EventSink} of the webhook engine. `emit` only records the event in the outbox (one write,
 * so the services' write path stays fast, and none when no endpoint subscribes) and queues the fan-out. The fan-out makes one stored
 * delivery per subscribed endpoint of every application installed on the account, in the account's
 * environment, and hands them to the engine. The outbox entry stays until each pending delivery has had its
 * first run (it stands for their pending markers meanwhile). A crash in between is repaired at the next
 * start: delivery ids are derived from the event and endpoint, so a second fan-out finds what the first one
 * made and runs again those still pending.
 */
export function createEventOutbox(deps: OutboxDeps) {
  const { store, clock } = deps;
  // Fan-outs queued while others run are taken together, in order of emit, up to FAN_OUT_EVENTS at a time:
  // their deliveries are stored as one group commit (one transaction for the lot on SQLite) instead of one each.
  let queued: QueuedFanOut[] = [];
  let draining = false;
  // Bumped by reset(): fan-outs queued before it lapse (their outbox entries are reloaded afterwards).
  let generation = 0;

  // Accounts never change environment and applications never change installs (the admin API only
  // creates them), so both are cached; reset() forgets them with everything else.
  const environments = new Map<string, EventRecord["environment"]>();
  const installs = new Map<string, Set<string>>();

  async function installedOn(appId: string): Promise<Set<string>> {
    let accounts = installs.get(appId);
    if (!accounts) installs.set(appId, (accounts = new Set((await deps.accounts.getApp(appId))?.account_ids ?? [])));
    return accounts;
  }

  /**
   * The endpoints `event` goes to, found without a wait: null on a shared store (its endpoints are synced
   * first) or when an application's installs are not known yet. Every emit and fan-out asks.
   */
  function knownTargets(event: EventRecord, firstOnly: boolean): EndpointRecord[] | null {
    if (store.shared) return null;
    const out: EndpointRecord[] = [];
    for (const endpoint of store.allEndpoints()) {
      if (endpoint.environment !== event.environment || !endpoint.events.includes(event.type) || !event.account_id) continue;
      const accounts = installs.get(endpoint.application_id);
      if (!accounts) return null;
      if (accounts.has(event.account_id)) out.push(endpoint);
      if (firstOnly && out.length > 0) break;
    }
    return out;
  }

  /** The endpoints `event` goes to; with `firstOnly`, stops at the first (the write path only asks whether any). */
  async function loadTargets(event: EventRecord, firstOnly = false): Promise<EndpointRecord[]> {
    const out: EndpointRecord[] = [];
    if (store.shared) await store.syncEndpoints();
    for (const endpoint of store.allEndpoints()) {
      if (endpoint.environment !== event.environment || !endpoint.events.includes(event.type) || !event.account_id) continue;
      // Known installs are read at once: every emit and fan-out asks, and a wait per endpoint adds up.
      const accounts = installs.get(endpoint.application_id) ?? (await installedOn(endpoint.application_id));
      if (accounts.has(event.account_id)) out.push(endpoint);
      if (firstOnly && out.length > 0) break;
    }
    return out;
  }

  /**
   * Stores and schedules the deliveries of `event`, {@link FAN_OUT_BATCH} endpoints at a time, yielding
   * to the event loop between batches so requests are served while thousands of endpoints fan out. The
   * outbox entry goes only once every batch is stored: a close or a crash in between leaves it, and the
   * next start finishes the fan-out (skipping the deliveries already made).
   */
  async function fanOut(event: EventRecord, recovering: boolean, stillWanted: () => boolean, holding = false): Promise<boolean> {
    const at = toTimestamp(clock.now());
    const list = knownTargets(event, false) ?? (await loadTargets(event));
    // A fan-out that fails keeps its hold (the outbox entry stays): the one that runs it again takes it over,
    // in this process; in a cluster its job runs again with a hold of its own, so this one goes.
    if (!holding) store.holdEvent(event.id);
    try {
      for (let i = 0; i < list.length; i += FAN_OUT_BATCH) {
        if (i > 0) await yieldToEventLoop();
        // Stopped: the outbox entry stays (never released) for the next start.
        if (!stillWanted()) return false;
        const made = await Promise.all(list.slice(i, i + FAN_OUT_BATCH).map((endpoint) => makeDelivery(event, endpoint, at, recovering)));
        const nowMs = clock.now().getTime();
        const queued: Promise<void>[] = [];
        for (const d of made) {
          const added = d && deps.engine.schedule({ id: d.id, endpoint_id: d.endpoint_id }, d.next_attempt_at ? Date.parse(d.next_attempt_at) : nowMs);
          if (added) queued.push(added);
        }
        // In a cluster, the jobs are queued before the outbox entry goes.
        if (queued.length > 0) await Promise.all(queued);
      }
    } catch (error) {
      if (store.shared) store.dropHold(event.id);
      throw error;
    }
    const released = store.releaseEvent(event.id);
    if (released) await released;
    return true;
  }

  /**
   * Stores the delivery of `event` to `endpoint` (covered by the outbox entry while pending) and returns it
   * when it is to run. After a restart one found stored is left as it is, and run again if still pending.
   */
  async function makeDelivery(event: EventRecord, endpoint: EndpointRecord, at: string, recovering: boolean): Promise<DeliveryRecord | null> {
    const delivery = toNewDelivery(event, endpoint, at);
    if (recovering) {
      const found = await store.readDelivery(endpoint.id, delivery.id);
      if (found) {
        if (found.status !== "pending") return null;
        store.cover(found, true);
        return found;
      }
    }
    await store.saveFanOutDelivery(delivery);
    return delivery.status === "pending" ? delivery : null;
  }

  const queueFanOut = (event: EventRecord, recovering: boolean, holding = false) => {
    if (deps.engine.closed) return;
    queued.push({ event, recovering, generation, holding });
    if (draining) return;
    draining = true;
    deps.work.track(drainFanOuts());
  };

  /**
   * Runs the queued fan-outs, {@link FAN_OUT_EVENTS} at a time. The events of one round fan out together:
   * their deliveries join the same group commits, are scheduled in the order their writes finish (the order
   * of emit), and each event's outbox entry goes once its own deliveries are stored. A round starts once the
   * previous one is done, so fan-outs stay in order and a burst of events is bounded in memory.
   */
  async function drainFanOuts(): Promise<void> {
    try {
      // Events stored by the same group commit are queued in the same turn: they start in one round.
      await yieldToEventLoop();
      while (queued.length > 0) {
        // An event queued twice (a recovery beside a live emit) waits for the next round: never two fan-outs of it at once.
        const ids = new Set<string>();
        const round: QueuedFanOut[] = [];
        for (const item of queued) {
          if (round.length === FAN_OUT_EVENTS || ids.has(item.event.id)) break;
          ids.add(item.event.id);
          round.push(item);
        }
        queued = queued.slice(round.length);
        await Promise.all(
          round.map(async ({ event, recovering, generation: queuedIn, holding }) => {
            const stillWanted = () => queuedIn === generation && !deps.engine.closed;
            if (!stillWanted()) return;
            try {
              await fanOut(event, recovering, stillWanted, holding);
            } catch (error) {
              deps.onError(`fan-out of ${event.id}`, error);
              if (error instanceof StorageFaultError && stillWanted()) refused.add(event.id, event);
            }
          }),
        );
      }
    } finally {
      draining = false;
    }
  }

  // Fan-outs the storage refused run again, as recoveries holding their event already, once it takes writes.
  const refused = whenWritable<EventRecord>(deps.health, (event) => queueFanOut(event, true, true));

  /** The event record of a domain event, in its account's environment. */
  async function toEventRecord(input: DomainEvent): Promise<EventRecord> {
    let environment = environments.get(input.account_id);
    if (!environment) {
      const account = await deps.accounts.get(input.account_id);
      environment = account?.environment ?? "production";
      if (account) environments.set(input.account_id, environment);
    }
    return { id: toOrderedId("evt", clock, deps.ids), type: input.type, timestamp: toTimestamp(clock.now()), account_id: input.account_id, environment, data: input.data };
  }

  /** Hands a stored outbox entry on to its fan-out. */
  function publish(event: EventRecord): void {
    // In a cluster the request does not wait for the queue: the event is stored, and an outbox entry whose
    // job was never added (Redis gone at that moment, a crash) is queued by the periodic sweep.
    if (deps.shared) deps.work.track(deps.shared.add({ kind: "fanout", event_id: event.id }, fanOutJobId(event.id)).catch((error) => deps.onError(`queueing the fan-out of ${event.id}`, error)));
    else queueFanOut(event, false);
  }

  /** Whether anything subscribes: when nothing does, no delivery could come of it, and the write path pays for no outbox record. */
  const wanted = async (event: EventRecord) => (knownTargets(event, true) ?? (await loadTargets(event, true))).length > 0;

  const sink: EventSink = {
    async emit(input: DomainEvent) {
      const event = await toEventRecord(input);
      // Emitted once its change is committed: kept for replay whether or not anything subscribes now.
      deps.log?.add(event);
      if (!(await wanted(event))) return;
      await store.putOutbox(event);
      publish(event);
    },
    async stage(input: DomainEvent) {
      const event = await toEventRecord(input);
      // Published once the caller's batch committed: only then is the event kept for replay.
      if (!(await wanted(event))) return { ops: [], publish: () => deps.log?.add(event) };
      return { ops: [store.outboxOp(event)], publish: () => (deps.log?.add(event), publish(event)) };
    },
  };

  return {
    sink,
    /** Fans out what a previous run recorded but did not finish. */
    async recover(): Promise<number> {
      const events = await store.outbox();
      // In a cluster, an event whose fan-out job is queued or running (in a live process) is not queued again.
      for (const event of events) {
        if (deps.shared) await deps.shared.add({ kind: "fanout", event_id: event.id }, fanOutJobId(event.id));
        else queueFanOut(event, true);
      }
      return events.length;
    },
    /**
     * Runs one fan-out job of a cluster. It always checks for deliveries already made: the job may be the
     * second run of one whose process died. Throws when stopped by a close, so the job runs again elsewhere.
     */
    async runFanOut(eventId: string): Promise<void> {
      const event = await store.readOutbox(eventId);
      if (!event) return;
      if (!(await fanOut(event, true, () => !deps.engine.closed))) {
        throw Object.assign(new Error(`the fan-out of ${eventId} stopped at a close; it runs again`), { requeued: true });
      }
    },
    reset() {
      generation += 1;
      refused.forget();
      environments.clear();
      installs.clear();
    },
  };
}
