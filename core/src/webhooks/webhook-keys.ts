import type { Stores } from "../storage/create-storage.js";

/**
 * Keys the engine of a cluster keeps in Redis besides its records (which go through the webhook store):
 * BullMQ's, the endpoints' slots and change locks, and the probe leases. All under the cluster's prefix.
 */
export function clusterKeys(prefix: string) {
  return {
    bull: `${prefix}bull`,
    slots: `${prefix}webhooks:slots:`,
    endpointLocks: `${prefix}webhooks:endpoint-lock:`,
    probe: (endpointId: string) => `${prefix}webhooks:probe:${endpointId}`,
  };
}

/** What a store shared by several processes adds: atomic batches, and random revision tokens. */
export interface SharedStore {
  batch: Stores["batch"];
  token: () => string;
}

/** What a pending marker keeps: enough to find the delivery again. */
export interface DeliveryRef {
  id: string;
  endpoint_id: string;
}
