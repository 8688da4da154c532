import type { DomainEvent, EventSink } from "@lp/core";
import { createDashboardAccess, type DashboardAccess } from "./access.js";
import { createRequestLog, type RequestLog } from "../journal/request-log.js";

/** A change the core reported, as the dashboard's live stream passes it on. */
export interface DashboardChange {
  type: string;
  account_id: string;
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
   * changes included (those of this process; other processes' changes reach it in a later step).
   */
  sink: EventSink;
  onChange(listener: (change: DashboardChange) => void): () => void;
  /** Registers something to end when the server closes (open event streams). */
  onClose(callback: () => void): () => void;
  /** Ends open event streams, so closing the listener does not wait on them; later ones are refused. */
  close(): void;
  /** Whether {@link close} was called: the server is stopping. */
  readonly closed: boolean;
  /** Forgets the login tokens and sessions (after the drain). */
  dispose(): Promise<void>;
}

/** Builds a {@link DashboardHub}. */
export function createDashboardHub(options: { capacity?: number } = {}): DashboardHub {
  const access = createDashboardAccess();
  const listeners = new Set<(change: DashboardChange) => void>();
  const closers = new Set<() => void>();
  let closed = false;
  return {
    access,
    requests: createRequestLog(options.capacity),
    sink: {
      async emit(event: DomainEvent) {
        for (const listener of listeners) listener({ type: event.type, account_id: event.account_id });
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
