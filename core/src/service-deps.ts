import type { Clock, IdSource } from "./deps.js";
import type { Database } from "./db/database.js";
import type { UnreadableRows } from "./db/unreadable-rows.js";
import type { EventSink } from "./events/event-sink.js";
import type { CursorCodec } from "./lists/cursor.js";
import type { Scheduler } from "./webhooks/scheduler.js";

/** What every stateful service of the core is built on; each service's deps extend it. */
export interface ServiceDeps {
  /** The relational store: every area's repository runs on it, in explicit transactions. */
  database: Database;
  clock: Clock;
  ids: IdSource;
  cursors: CursorCodec;
  events: EventSink;
  /** Base of public addresses; a function because the port may be known late. */
  publicUrl: () => string;
  /** Names in the log, once each, the rows a read cannot take as their resource (`db/unreadable-rows.ts`). */
  unreadableRows?: UnreadableRows;
}

/**
 * Deps of a service whose work runs in the background: rows of a queue table taken by a worker
 * (`db/worker.ts`), with pauses between steps.
 */
export interface BackgroundDeps {
  /** This process's id: the `lease_owner` of the rows its workers claim. */
  owner: string;
  /** Timers of the workers (the next due time, lease renewals): the core's scheduler, a manual one in tests. */
  scheduler: Scheduler;
  /** Runs at once per worker (the worker's default when not given). */
  concurrency?: number;
  /** How long a worker's claim holds unless renewed (the worker's default, 30 s, when not given). */
  leaseMs?: number;
  /** Where a run's failure is reported (`generation <job id>`, `deployment <id>`). */
  onError: (name: string, error: unknown) => void;
  sleep: (ms: number) => Promise<void>;
  stepDelayMs: () => number;
}
