import type { AnnouncedChange, DomainEvent, EventSink, Wakeups } from "@lp/core";
import { createDashboardAccess, type DashboardAccess } from "./access.js";
import type { ExpiringKeys } from "./expiring-keys.js";
import { createRequestLog, type RequestLog } from "../journal/request-log.js";

/** A change the core reported, as the dashboard's live stream passes it on. */
export type DashboardChange = AnnouncedChange;

/** How the processes sharing a PostgreSQL database tell each other of their changes (the database's wake-ups). */
export type SharedChanges = Pick<Wakeups, "announceChange" | "listenChanges">;

/** Options of {@link createDashboardHub}. */
export interface DashboardHubOptions {
  /** Entries of the request log (default 500). */
  capacity?: number;
  /** Where login tokens and sessions are kept: this process's memory by default, the database when processes share one. */
  keys?: ExpiringKeys;
  /** With processes sharing a database: each change is told to the others, and theirs reach this live stream. */
  shared?: SharedChanges;
}

/**
 * What the dashboard needs from the moment the server starts, before anyone opens it: login tokens and
 * sessions, the request log, and a tap on the core's events. Small on purpose: the dashboard's routes,
 * views and static files load on its first request.
 */
export interface DashboardHub {
  access: DashboardAccess;
  requests: RequestLog;
  /**
   * Give this to `createCore({ events })`: the live stream follows the core's own events, background
   * changes included, once their transaction committed; with `shared`, it also tells other processes of them.
   */
  sink: EventSink;
  /** Calls `listener` with each change of this process and, with `shared`, of every other process (each once). */
  onChange(listener: (change: DashboardChange) => void): () => void;
  /** Registers something to end when the server closes (open event streams). */
  onClose(callback: () => void): () => void;
  /** Ends open event streams, so closing the listener does not wait on them; later ones are refused. */
  close(): void;
  /** Whether {@link close} was called: the server is stopping. */
  readonly closed: boolean;
  /** Forgets the login tokens and sessions kept in memory (after the drain); a database keeps its own. */
  dispose(): Promise<void>;
}

/** Builds a {@link DashboardHub}. */
export function createDashboardHub(options: DashboardHubOptions = {}): DashboardHub {
  const access = createDashboardAccess(options.keys);
  const listeners = new Set<(change: DashboardChange) => void>();
  const closers = new Set<() => void>();
  let closed = false;
  const tell = (change: DashboardChange) => {
    for (const listener of listeners) listener(change);
  };
  // Another process's changes: its own listeners heard them, this process's hear them from its notification.
  void options.shared?.listenChanges((change) => listeners.size > 0 && tell(change));
  const announcer = options.shared ? toChangeAnnouncer(options.shared) : null;
  return {
    access,
    requests: createRequestLog(options.capacity),
    sink: {
      async emit(event: DomainEvent) {
        tell({ type: event.type, account_id: event.account_id });
        await announcer?.emit(event);
      },
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onClose(callback) {
      closers.add(callback);
      return () => closers.delete(callback);
    },
    close() {
      closed = true;
      for (const callback of closers) callback();
      closers.clear();
    },
    get closed() {
      return closed;
    },
    dispose: () => access.close(),
  };
}

/**
 * An event sink that tells the other processes sharing the database of each change (best effort), so their
 * dashboards follow it: the hub's sink does it, and a process without a dashboard (`--no-admin`) gives the core
 * this one, so its changes still reach the others' dashboards.
 */
export function toChangeAnnouncer(shared: SharedChanges): EventSink {
  return { emit: (event) => shared.announceChange({ type: event.type, account_id: event.account_id }) };
}
