import type { StorageHealth } from "../storage/storage-faults.js";

/** What background work asks of the storage's fault watch ({@link StorageHealth}). */
export type FanOutHealth = Pick<StorageHealth, "state" | "onRecovered">;

/**
 * Work the storage refused (a full disk), kept by id until it takes writes again, then handed to `run`
 * once each: a fan-out refused after its event was acknowledged goes out without a client write or a
 * restart. Without a `health` to say when, nothing is kept (the next start's recovery takes it up).
 */
export function whenWritable<T>(health: FanOutHealth | undefined, run: (item: T) => void) {
  const waiting = new Map<string, T>();
  const runAll = () => {
    const items = [...waiting.values()];
    waiting.clear();
    for (const item of items) run(item);
  };
  health?.onRecovered(runAll);
  return {
    add(id: string, item: T): void {
      if (!health) return;
      waiting.set(id, item);
      // The fault may be over already (another write went through meanwhile): then at once.
      if (!health.state()) runAll();
    },
    /** Drops what waits (an admin reset: the stored outbox is read again afterwards). */
    forget(): void {
      waiting.clear();
    },
  };
}
