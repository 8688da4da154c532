import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import { afterCommit, type Database, type Queries, type Tx } from "../db/database.js";
import { preparedQuery } from "../db/prepared-query.js";
import type { DomainEvent, EventSink } from "../events/event-sink.js";
import type { DeliveryRepository } from "./delivery-repository.js";
import type { EndpointRepository } from "./endpoint-repository.js";
import { toOrderedId } from "../ids.js";
import type { DeliveryRecord, EndpointRecord, EventRecord } from "./records.js";

/** What the event recorder needs. */
export interface EventRecorderDeps {
  database: Database;
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  clock: Clock;
  ids: IdSource;
  /** Tells the delivery worker that deliveries are due. */
  wake: () => void;
  /** Where an emit that failed is reported (its callers may not wait for it). */
  onError: (what: string, error: unknown) => void;
}

/**
 * The {@link EventSink} of the webhook engine. `record` writes the event row and one delivery of it to each
 * subscribed endpoint (subscribed to its type, in its account's environment, of an application installed on
 * its account) in the transaction of the change that caused it, so both commit or neither, and wakes the
 * delivery worker once it has committed. `emit` (an event with no change of its own) is a transaction of its
 * own with `record`. Every event is stored, subscribed to or not, for replay.
 */
/** The environment an account's events are of. */
const environmentOf = preparedQuery((q: Queries, accountId: string) => q.selectFrom("accounts").select("environment").where("account_id", "=", accountId));

export function createEventRecorder(deps: EventRecorderDeps) {
  const { database, clock } = deps;
  // Emits under way (callers may not wait for them): onIdle waits for them before the worker.
  const inFlight = new Set<Promise<void>>();

  async function toEventRecord(q: Queries, input: DomainEvent): Promise<EventRecord> {
    // Read in the caller's transaction: on SQLite a read outside it would wait for it to end.
    const [account] = await environmentOf(q, input.account_id);
    return {
      id: toOrderedId("evt", clock, deps.ids),
      type: input.type,
      timestamp: toTimestamp(clock.now()),
      account_id: input.account_id,
      environment: account?.environment ?? "production",
      data: input.data,
    };
  }

  /**
   * Stores `event` and its deliveries to `targets` in `tx` (only new rows: the change's transaction locks
   * nothing the delivery worker writes). Answers the deliveries as stored, and wakes the worker when one is due.
   */
  async function write(tx: Tx, event: EventRecord, targets: readonly EndpointRecord[], trigger?: "test"): Promise<DeliveryRecord[]> {
    const made = await deps.deliveries.recordEvent(tx, event, targets, { trigger });
    // Once committed: a claim made before would not see them on PostgreSQL (on SQLite it would wait for the commit).
    if (made.some((d) => d.next_attempt_at !== null)) afterCommit(tx, deps.wake);
    return made;
  }

  async function record(tx: Tx, input: DomainEvent): Promise<void> {
    const event = await toEventRecord(tx, input);
    await write(tx, event, await deps.endpoints.subscribers(tx, event));
  }

  const sink: EventSink = {
    record,
    emit(input: DomainEvent): Promise<void> {
      const done = database.transaction((tx) => record(tx, input));
      const tracked = done.then(
        () => {},
        (error: unknown) => deps.onError(`recording the event ${input.type} of ${input.account_id}`, error),
      );
      inFlight.add(tracked);
      void tracked.finally(() => inFlight.delete(tracked));
      return done;
    },
  };

  return {
    sink,
    /** Stores an event (a test event) and its delivery to `endpoint` alone, in `tx`. */
    recordFor: (tx: Tx, event: EventRecord, endpoint: EndpointRecord): Promise<DeliveryRecord[]> => write(tx, event, [endpoint], "test"),
    /** Whether an emit is under way. */
    get busy(): boolean {
      return inFlight.size > 0;
    },
    /** Resolves once every emit under way has committed or failed. */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

export type EventRecorder = ReturnType<typeof createEventRecorder>;
