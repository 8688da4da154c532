import type { Storage } from "unstorage";
import type { IndexRegistry } from "../lists/index-registry.js";
import { applyInOrder, type BatchOp, type Stores } from "../storage/create-storage.js";
import { createGroupCommit } from "./group-commit.js";
import { deliveryText, eventText } from "./record-text.js";
import { toEndpointEntry, type DeliveryRecord, type EndpointRecord, type EventRecord } from "./records.js";
import { skipUnreadable } from "../storage/record-check.js";
import type { OrderedCollections } from "../storage/create-storage.js";
import { createDeliveryLists } from "./delivery-lists.js";
import type { DeliveryRef, SharedStore } from "./webhook-keys.js";
import { createEventHolds } from "./event-holds.js";

const ENDPOINTS = "webhooks:endpoints";
const DELIVERIES = "webhooks:deliveries";
const PENDING = "webhooks:pending";
const OUTBOX = "webhooks:outbox";
/** Rewritten with every endpoint change on a shared store: a process whose copy is older reloads them. */
const ENDPOINTS_REV = "webhooks:endpoints-rev";

export { clusterKeys, type DeliveryRef, type SharedStore } from "./webhook-keys.js";

/**
 * Storage of the webhook engine. Endpoints live in memory (a process-wide cache, written through in
 * order per endpoint), so the engine and fan-out read them synchronously. Deliveries are stored with an
 * index per endpoint (none on SQLite, whose lists read the database: `delivery-lists.ts`); pending ones are
 * also kept in memory, so an attempt does not read its record back. Two marker folders keep start-up cheap:
 * `webhooks:outbox` holds events not yet fanned out, `webhooks:pending` the deliveries not yet settled;
 * nothing else is scanned.
 *
 * With `shared` (a store several processes use), records are read where decisions are taken instead of
 * kept: an endpoint is read fresh by the engine, the endpoint cache follows a revision key, deliveries
 * are not cached, and a delivery and its marker are written in one atomic batch. Otherwise the deliveries
 * saved together (attempts finishing at once, a fan-out's batch) are written as one group commit through
 * `batch` (the store's `Stores.batch`; in order by default), each save reported only once its group is durable.
 */
export function createWebhookStore(storage: Storage, indexes: IndexRegistry, shared?: SharedStore, batch?: Stores["batch"], ordered?: OrderedCollections) {
  const endpoints = new Map<string, EndpointRecord>();
  const pending = new Map<string, DeliveryRecord>();
  // Pending deliveries a fan-out stored without their marker: the event's outbox entry stands for them until
  // each has had its first run (then a marker is written only if it is still pending). Saves the marker's
  // write and removal for a delivery that succeeds at once. `held` counts, per event, the deliveries still
  // covered plus one while its fan-out runs; at zero the outbox entry goes.
  const covered = new Map<string, string>();
  // Covered deliveries found again after a restart may have a marker already: removed if they settle.
  const recoveredCovers = new Set<string>();
  const held = createEventHolds();
  const write = (ops: readonly BatchOp[]) => (batch ? batch(ops) : applyInOrder(storage, ops));
  const group = createGroupCommit({ write });
  // Outbox entries have a group commit of their own: events emitted together share a flush, and an API
  // call's event never waits behind a group of delivery records being written.
  const outboxGroup = createGroupCommit({ write });
  // Nothing to wait for (undefined) while other holds remain: a fan-out releases its event on every delivery.
  function release(eventId: string): Promise<void> | undefined {
    if (!held.drop(eventId)) return undefined;
    const key = `${OUTBOX}:${eventId}`;
    // Locally with the group commit, so it joins the records finishing with it.
    return shared ? storage.removeItem(key) : group.commit([{ key, remove: true }]);
  }
  const writes = new Map<string, Promise<void>>();
  // The endpoints revision this process's copy reflects (shared stores only).
  let revision: string | null = null;
  const markerOp = (d: DeliveryRecord): BatchOp => ({ key: `${PENDING}:${d.id}`, value: { id: d.id, endpoint_id: d.endpoint_id } });
  const endpointKey = (appId: string, id: string) => `${ENDPOINTS}:${appId}:${id}`;
  const deliveryKey = (endpointId: string, id: string) => `${DELIVERIES}:${endpointId}:${id}`;
  const endpointIndex = (appId: string) => indexes.get(`${ENDPOINTS}:${appId}`, toEndpointEntry);
  const deliveryLists = createDeliveryLists(storage, indexes, DELIVERIES, ordered);

  /** Persists the endpoint's current cached value (or its removal) after earlier writes of it. */
  function persist(id: string, appId: string): Promise<void> {
    const previous = writes.get(id) ?? Promise.resolve();
    const next = previous.then(async () => {
      const current = endpoints.get(id);
      const index = await endpointIndex(appId);
      const key = endpointKey(appId, id);
      const op: BatchOp = current ? { key, value: current } : { key, remove: true };
      if (shared) await shared.batch([op, { key: ENDPOINTS_REV, value: { rev: (revision = shared.token()) } }]);
      else if (current) await storage.setItem(key, current);
      else await storage.removeItem(key);
      if (current) index.upsert(toEndpointEntry(current));
      else index.remove(id);
    });
    const settled = next.catch(() => {});
    writes.set(id, settled);
    void settled.then(() => writes.get(id) === settled && writes.delete(id));
    return next;
  }

  /** Reads every endpoint, then swaps them in at once: a fan-out running meanwhile sees the old set or the new. */
  async function loadEndpoints(): Promise<void> {
    const rev = shared ? ((await storage.getItem<{ rev: string }>(ENDPOINTS_REV))?.rev ?? null) : null;
    const loaded: EndpointRecord[] = [];
    for (const key of await storage.getKeys(ENDPOINTS)) {
      const record = await skipUnreadable(storage.getItem<EndpointRecord>(key));
      if (record?.id) loaded.push(record);
    }
    endpoints.clear();
    for (const record of loaded) endpoints.set(record.id, record);
    revision = rev;
  }

  /** A delivery and its marker in one atomic batch, so no process sees one without the other. */
  async function saveShared(d: DeliveryRecord, wasPending: boolean): Promise<void> {
    const ops: BatchOp[] = [{ key: deliveryKey(d.endpoint_id, d.id), value: d }];
    if (d.status === "pending" && !wasPending) ops.push(markerOp(d));
    if (d.status !== "pending" && wasPending) ops.push({ key: `${PENDING}:${d.id}`, remove: true });
    await shared!.batch(ops);
    await deliveryLists.record(d);
  }

  /** Ends the cover of `id` by `eventId`: a marker if it is still pending, then the event's hold released. */
  async function endCoverOf(id: string, eventId: string): Promise<void> {
    covered.delete(id);
    const d = pending.get(id);
    if (d) await group.commit([markerOp(d)]);
    else if (recoveredCovers.has(id)) await group.commit([{ key: `${PENDING}:${id}`, remove: true }]);
    recoveredCovers.delete(id);
    await release(eventId);
  }

  return {
    /** Loads every endpoint into memory (start, reset, import). */
    async load(): Promise<void> {
      pending.clear();
      covered.clear();
      recoveredCovers.clear();
      held.clear();
      await loadEndpoints();
    },
    /** Whether several processes share the store (endpoints are then synced and read fresh). */
    shared: Boolean(shared),
    endpoint: (id: string): EndpointRecord | undefined => endpoints.get(id),
    /**
     * The endpoint as stored now: on a shared store read fresh (another process may have changed its status
     * or circuit), and the copy in memory updated; otherwise the copy in memory.
     */
    async fetchEndpoint(appId: string, id: string): Promise<EndpointRecord | undefined> {
      if (!shared) {
        const found = endpoints.get(id);
        return found?.application_id === appId ? found : undefined;
      }
      await this.flush();
      const found = await storage.getItem<EndpointRecord>(endpointKey(appId, id));
      if (found?.id === id) endpoints.set(id, found);
      else endpoints.delete(id);
      return found?.id === id ? found : undefined;
    },
    /** On a shared store, reloads every endpoint when another process changed one since; one read otherwise. */
    async syncEndpoints(): Promise<void> {
      if (!shared) return;
      await this.flush();
      const rev = (await storage.getItem<{ rev: string }>(ENDPOINTS_REV))?.rev ?? null;
      if (rev !== revision) await loadEndpoints();
    },
    allEndpoints: (): IterableIterator<EndpointRecord> => endpoints.values(),
    endpointIndex,
    /**
     * Replaces an endpoint in memory at once (so every reader after this line sees it) and returns the
     * write to storage, which is ordered after earlier writes of the same endpoint.
     */
    putEndpoint(record: EndpointRecord): Promise<void> {
      endpoints.set(record.id, record);
      return persist(record.id, record.application_id);
    },
    removeEndpoint(record: EndpointRecord): Promise<void> {
      endpoints.delete(record.id);
      return persist(record.id, record.application_id);
    },
    /** Resolves once every endpoint write started so far has reached storage. */
    async flush(): Promise<void> {
      while (writes.size > 0) await Promise.all([...writes.values()]);
      await outboxGroup.flush();
      await group.flush();
    },

    /** What a deliveries list asks its page of (`delivery-lists.ts`). */
    deliveryListing: (endpointId: string) => deliveryLists.listing(endpointId),
    /** A new endpoint has no deliveries: its index starts empty instead of being read from storage. */
    seedDeliveryIndex: (endpointId: string) => deliveryLists.seed(endpointId),
    /** The pending delivery kept in memory (none on a shared store): what a run reads without a wait. */
    pendingDelivery(endpointId: string, id: string): DeliveryRecord | undefined {
      const cached = shared ? undefined : pending.get(id);
      return cached?.endpoint_id === endpointId ? cached : undefined;
    },
    async readDelivery(endpointId: string, id: string): Promise<DeliveryRecord | null> {
      const cached = shared ? undefined : pending.get(id);
      if (cached) return cached.endpoint_id === endpointId ? cached : null;
      return storage.getItem<DeliveryRecord>(deliveryKey(endpointId, id));
    },
    /**
     * Writes a delivery, its index entry, and its pending marker (set while pending, gone after); a delivery
     * covered by its event's outbox entry has no marker yet, so none is written or removed.
     */
    async saveDelivery(d: DeliveryRecord, wasPending: boolean): Promise<void> {
      if (shared) return saveShared(d, wasPending);
      const previous = pending.get(d.id);
      if (d.status === "pending") pending.set(d.id, d);
      else pending.delete(d.id);
      const coveredBy = covered.get(d.id);
      const marked = coveredBy === undefined;
      const ops: BatchOp[] = [];
      if (marked && d.status === "pending" && !wasPending) ops.push(markerOp(d));
      ops.push({ key: deliveryKey(d.endpoint_id, d.id), value: deliveryText(d) });
      if (marked && d.status !== "pending" && wasPending) ops.push({ key: `${PENDING}:${d.id}`, remove: true });
      // A covered delivery that settles ends its cover in the same group: a marker a restart left goes with
      // it, and the event's outbox entry too when no other delivery or fan-out holds it (after the record,
      // so a kill between them leaves the entry, whose next fan-out finds the delivery settled).
      const settlesCover = coveredBy !== undefined && d.status !== "pending";
      const closesEvent = settlesCover && held.count(coveredBy) === 1;
      if (settlesCover && recoveredCovers.has(d.id)) ops.push({ key: `${PENDING}:${d.id}`, remove: true });
      if (closesEvent) ops.push({ key: `${OUTBOX}:${coveredBy}`, remove: true });
      try {
        await group.commit(ops);
      } catch (error) {
        // Not stored, or not surely: the copy in memory goes back to what was stored before, so the next
        // run of the delivery starts from it (unless a newer save has replaced it meanwhile).
        if (pending.get(d.id) === d || (d.status !== "pending" && !pending.has(d.id))) {
          if (previous) pending.set(d.id, previous);
          else pending.delete(d.id);
        }
        throw error;
      }
      if (settlesCover && covered.get(d.id) === coveredBy) {
        covered.delete(d.id);
        recoveredCovers.delete(d.id);
        if (closesEvent && held.count(coveredBy) === 1) held.delete(coveredBy);
        else await release(coveredBy);
      }
      await deliveryLists.record(d);
    },
    /** A fan-out of `eventId` starts: its outbox entry stays at least until {@link releaseEvent}. */
    holdEvent: held.add,
    /** The fan-out of `eventId` is done; the outbox entry goes once no delivery it covers is left. */
    releaseEvent: release,
    /** A fan-out of `eventId` failed and runs again as a job of its own (shared stores): its hold goes, the entry stays. */
    dropHold: (eventId: string): void => void held.drop(eventId),
    /** Stores a delivery a fan-out made; a pending one is covered by the event's outbox entry (no marker). */
    saveFanOutDelivery(d: DeliveryRecord): Promise<void> {
      if (d.status === "pending" && !shared) this.cover(d);
      return this.saveDelivery(d, false);
    },
    /** Covers a pending delivery by its event's outbox entry (a fan-out made it, or found it again after a restart). */
    cover(d: DeliveryRecord, recovered = false): void {
      if (covered.has(d.id) || shared) return;
      covered.set(d.id, d.event_id);
      if (recovered) recoveredCovers.add(d.id);
      held.add(d.event_id);
    },
    /**
     * After a delivery's first run: if its event's outbox entry covered it, it gets its marker now when it
     * is still pending (a retry, a hold, a wait), and the entry may go.
     */
    endCover(id: string): Promise<void> | undefined {
      const eventId = covered.get(id);
      // The usual case (a first attempt that settled ended its cover with its record): nothing to wait for.
      if (eventId === undefined) return undefined;
      return endCoverOf(id, eventId);
    },    /** Removes an endpoint's deliveries; on a shared store every stored one (other processes made some), each with its marker at once. */
    async removeDeliveries(endpointId: string): Promise<void> {
      const indexed = await deliveryLists.indexed(endpointId);
      const ids = new Set(indexed ?? []);
      if (shared || !indexed) for (const key of await storage.getKeys(`${DELIVERIES}:${endpointId}`)) ids.add(key.slice(key.lastIndexOf(":") + 1));
      for (const id of ids) {
        pending.delete(id);
        const ops: BatchOp[] = [{ key: `${PENDING}:${id}`, remove: true }, { key: deliveryKey(endpointId, id), remove: true }];
        if (shared) await shared.batch(ops);
        else for (const op of ops) await storage.removeItem(op.key);
        await deliveryLists.forget(endpointId, id);
      }
    },
    dropPendingMarker: (id: string) => storage.removeItem(`${PENDING}:${id}`),
    async pendingRefs(): Promise<DeliveryRef[]> {
      const refs: DeliveryRef[] = [];
      for (const key of await storage.getKeys(PENDING)) {
        const ref = await skipUnreadable(storage.getItem<DeliveryRef>(key));
        if (ref?.id && ref.endpoint_id) refs.push(ref);
      }
      return refs;
    },

    /** The write of an event's outbox entry, for a batch that commits it with the change that caused the event. */
    outboxOp: (event: EventRecord): BatchOp => ({ key: `${OUTBOX}:${event.id}`, value: shared ? event : eventText(event) }),
    /** Stores an event's outbox entry; locally by a group commit, so the entries of events emitted together share one flush. */
    putOutbox: (event: EventRecord): Promise<void> => {
      const key = `${OUTBOX}:${event.id}`;
      return shared ? storage.setItem(key, event) : outboxGroup.commit([{ key, value: eventText(event) }]);
    },
    readOutbox: (eventId: string) => storage.getItem<EventRecord>(`${OUTBOX}:${eventId}`),
    async outbox(): Promise<EventRecord[]> {
      const keys = (await storage.getKeys(OUTBOX)).sort();
      const events = await Promise.all(keys.map((k) => skipUnreadable(storage.getItem<EventRecord>(k))));
      return events.filter((e): e is EventRecord => e !== null);
    },
  };
}

export type WebhookStore = ReturnType<typeof createWebhookStore>;
