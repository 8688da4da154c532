import type { Clock } from "../deps.js";
import type { EventRecord } from "./records.js";

/** How long events are kept for replay by default: 7 days (`lp serve --event-retention`). */
export const DEFAULT_EVENT_RETENTION_MS = 7 * 86_400_000;
/** Most events kept, whatever their age: a burst never grows the process without bound. */
export const EVENT_LOG_CAPACITY = 10_000;

/** An event as the log keeps it: what a replay selects by, and the event's JSON. */
interface KeptEvent {
  at: number;
  type: string;
  environment: EventRecord["environment"];
  account_id: string | null;
  text: string;
}

/** Options of {@link createEventLog}. */
export interface EventLogOptions {
  clock: Clock;
  retentionMs?: number;
  capacity?: number;
}

/**
 * The events this process emitted, oldest first, for replay (`POST /_admin/webhook-endpoints/{id}/replay`):
 * each kept until it is `retentionMs` old by the core's clock (a manual one too: an advance past the
 * retention expires them) or until `capacity` newer ones came after it. Kept in memory, never stored: a
 * restart starts an empty log. Every event is kept, whether or not anything subscribed when it happened,
 * so an endpoint created later can be sent what it missed.
 */
export function createEventLog(options: EventLogOptions) {
  const retentionMs = options.retentionMs ?? DEFAULT_EVENT_RETENTION_MS;
  const capacity = options.capacity ?? EVENT_LOG_CAPACITY;
  // Each event as its JSON text (about its size in bytes, a fraction of the objects it came as) beside what a
  // replay filters on: a full log costs a few megabytes, not the tens its records would.
  let events: KeptEvent[] = [];
  // Index of the oldest live entry: expiring moves it instead of shifting the array on every add.
  let start = 0;

  /** Drops what is older than the retention (by the clock now) and what is over the capacity. */
  function expire(): void {
    const cutoff = options.clock.now().getTime() - retentionMs;
    while (start < events.length && (events.length - start > capacity || events[start].at < cutoff)) start++;
    // Compact once the dead prefix is as long as what is live.
    if (start > 0 && start >= events.length - start) {
      events = events.slice(start);
      start = 0;
    }
  }

  return {
    retentionMs,
    capacity,
    /** Keeps an event that was emitted (its change committed). */
    add(event: EventRecord): void {
      events.push({ at: Date.parse(event.timestamp), type: event.type, environment: event.environment, account_id: event.account_id, text: JSON.stringify(event) });
      expire();
    },
    /** Events with `from <= timestamp <= to` (epoch ms) that `keep` accepts, oldest first; what expired is gone first. */
    between(from: number, to: number, keep: (event: Omit<KeptEvent, "text">) => boolean): EventRecord[] {
      expire();
      const out: EventRecord[] = [];
      for (let i = start; i < events.length; i++) {
        const e = events[i];
        if (e.at >= from && e.at <= to && keep(e)) out.push(JSON.parse(e.text) as EventRecord);
      }
      return out;
    },
    /** How many events are kept now. */
    get size(): number {
      expire();
      return events.length - start;
    },
    /** Forgets every event (an admin reset or import). */
    clear(): void {
      events = [];
      start = 0;
    },
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
