import type { Tx } from "../db/database.js";

/** A change worth telling partners about, as the service that made it describes it. */
export interface DomainEvent {
  type: string;
  account_id: string;
  /** The resource as the API returns it. */
  data: unknown;
}

/** Where every service reports its state changes; the webhook engine fans them out. */
export interface EventSink {
  /** Records and hands on an event by itself (its own transaction: no change goes with it). */
  emit(event: DomainEvent): Promise<void>;
  /**
   * Writes the event and its fan-out in the change's transaction `tx`, so the change and its event commit
   * together or not at all; handed on (the deliveries' worker woken, the dashboard told) once it commits.
   * Sinks that store nothing are told after the commit instead.
   */
  record?(tx: Tx, event: DomainEvent): Promise<void>;
}

/** Records `event` with the change being made in `tx` (see {@link EventSink.record}). */
export async function recordEvent(sink: EventSink, tx: Tx, event: DomainEvent): Promise<void> {
  if (sink.record) return sink.record(tx, event);
  const { afterCommit } = await import("../db/database.js");
  afterCommit(tx, () => void sink.emit(event).catch(() => {}));
}
