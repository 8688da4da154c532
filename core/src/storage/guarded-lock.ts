import type { Lock } from "../ports/lock.js";
import { StorageFaultError, type StorageHealth } from "./storage-faults.js";

/**
 * A shared lock whose own writes are refused (Redis at maxmemory refuses the lease's SET) fails the request
 * before any guarded store is written: this tells `health` of that fault too, so `/healthz` and the log say
 * why writes are refused. Faults thrown by the work under the lock were counted by the guarded stores already.
 */
export function guardLock(lock: Lock, health: StorageHealth): Lock {
  return {
    async withLock(key, fn) {
      let started = false;
      try {
        return await lock.withLock(key, (lease) => {
          started = true;
          return fn(lease);
        });
      } catch (error) {
        if (!started && error instanceof StorageFaultError) health.refused(error);
        throw error;
      }
    },
    ...(lock.close && { close: () => lock.close!() }),
  };
}
