import { toTimestamp, type Clock } from "../deps.js";
import type { Database } from "../db/database.js";
import type { DeliveryRepository } from "./delivery-repository.js";
import type { Scheduler, TimerHandle } from "./scheduler.js";

/** The first removal of expired events comes this long after the start, then one every {@link SWEEP_EVERY_MS}. */
const FIRST_SWEEP_MS = 60_000;
const SWEEP_EVERY_MS = 60 * 60_000;

/** What the retention of events needs. */
export interface EventRetentionDeps {
  database: Database;
  deliveries: DeliveryRepository;
  clock: Clock;
  /** The core's scheduler: on a manual clock the removals come as its time passes. */
  scheduler: Scheduler;
  retentionMs: number;
  onError: (what: string, error: unknown) => void;
}

/**
 * Removes the events older than the retention (by the core's clock) that no delivery shows, a minute after
 * the start and then every hour, one removal at a time: a server that runs for months keeps the retention's
 * worth of events. A replay never reads past the retention, whether or not they are removed yet.
 */
export function createEventRetention(deps: EventRetentionDeps) {
  let timer: TimerHandle | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;

  function sweep(): void {
    if (running) return;
    const before = toTimestamp(new Date(deps.clock.now().getTime() - deps.retentionMs));
    running = deps.deliveries
      .deleteEventsBefore(deps.database.db, before)
      .then(
        () => {},
        (error: unknown) => deps.onError("removing expired events (tried again in an hour)", error),
      )
      .finally(() => (running = null));
  }

  function arm(ms: number): void {
    timer = deps.scheduler.setTimeout(() => {
      sweep();
      if (!stopped) arm(SWEEP_EVERY_MS);
    }, ms);
  }

  return {
    start(): void {
      if (!timer && !stopped) arm(FIRST_SWEEP_MS);
    },
    /** Resolves once the removal under way (if any) is done. */
    idle: async (): Promise<void> => void (await running),
    async stop(): Promise<void> {
      stopped = true;
      timer?.cancel();
      timer = null;
      await running;
    },
  };
}
