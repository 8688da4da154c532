import type { Tx } from "../db/database.js";
import type { BatchOp } from "../storage/create-storage.js";

/** A change worth telling partners about, as the service that made it describes it. */
export interface DomainEvent {
  type: string;
  account_id: string;
  /** The resource as the API returns it. */
  data: unknown;
}

/**
 * An event made ready to be committed with the change that caused it: `ops` are the writes that record it
 * (the webhook outbox entry; none when no endpoint subscribes), to go in the change's own batch, so a crash
 * leaves both or neither; `publish` hands it on (the fan-out, the dashboard) once that batch is durable.
 */
export interface StagedEvent {
  ops: BatchOp[];
  publish(): void;
}

/** Where every service reports its state changes; the webhook engine fans them out. */
export interface EventSink {
  /** Records and hands on an event by itself (the change that caused it is already stored). */
  emit(event: DomainEvent): Promise<void>;
  /** Makes an event ready to commit with its change (see {@link StagedEvent}); sinks that store nothing may leave it out. */
  stage?(event: DomainEvent): Promise<StagedEvent>;
  /** Writes the event and its fan-out in the change's transaction `tx`; handed on once it commits. */
  record?(tx: Tx, event: DomainEvent): Promise<void>;
}

/** A sink that drops events, for cores built without a webhook engine. */
export const nullEventSink: EventSink = { emit: async () => {} };

/** `event` staged on `sink`; a sink without `stage` stores nothing, so it is simply told once the change is durable. */
export function stageEvent(sink: EventSink, event: DomainEvent): Promise<StagedEvent> {
  if (sink.stage) return sink.stage(event);
  return Promise.resolve({ ops: [], publish: () => void sink.emit(event).catch(() => {}) });
}

/**
 * Records `event` with the change being made in `tx`: on a sink that keeps events in the database (its
 * `record`), the event row and its deliveries are written in that transaction and handed on once it commits.
 * A sink of the key-value store instead has the event staged, stored with `batch` and published.
 */
export async function recordEvent(sink: EventSink, tx: Tx, event: DomainEvent, batch: (ops: readonly BatchOp[]) => Promise<void>): Promise<void> {
  if (sink.record) return sink.record(tx, event);
  const staged = await stageEvent(sink, event);
  if (staged.ops.length > 0) await batch(staged.ops);
  staged.publish();
}
