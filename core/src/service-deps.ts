import type { Storage } from "unstorage";
import type { Clock, IdSource } from "./deps.js";
import type { Database } from "./db/database.js";
import type { EventSink } from "./events/event-sink.js";
import type { CursorCodec } from "./lists/cursor.js";
import type { IndexRegistry } from "./lists/index-registry.js";
import type { Lock } from "./ports/lock.js";
import type { JobQueue } from "./ports/queue.js";
import type { BatchFence, BatchOp } from "./storage/create-storage.js";

/** What every stateful service of the core is built on; each service's deps extend it. */
export interface ServiceDeps {
  /** The relational store: every area's repository runs on it, in explicit transactions. */
  database: Database;
  storage: Storage;
  /** Several writes to `storage` as one change ({@link Stores.batch}: atomic on a shared store). */
  batch: (ops: readonly BatchOp[], fence?: BatchFence) => Promise<void>;
  clock: Clock;
  ids: IdSource;
  lock: Lock;
  indexes: IndexRegistry;
  cursors: CursorCodec;
  events: EventSink;
  /** Base of public addresses; a function because the port may be known late. */
  publicUrl: () => string;
}

/** Deps of a service that runs steps in the background and can pause between them. */
export interface BackgroundDeps {
  queue: JobQueue;
  sleep: (ms: number) => Promise<void>;
  stepDelayMs: () => number;
}
