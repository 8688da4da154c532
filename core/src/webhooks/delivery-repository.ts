import type { Queries, Tx } from "../db/database.js";
import { preparedInsert } from "../db/prepared-query.js";
import { selectKeysetPage, type KeysetPage, type KeysetQuery } from "../lists/keyset-page.js";
import { readReadable, type UnreadableRows } from "../db/unreadable-rows.js";
import { createDeliveryReads, insertDeliveries, toEventRow } from "./delivery-rows.js";
import { toNewDelivery, type DeliveryRecord, type DeliveryStatus, type EndpointRecord, type EventRecord } from "./records.js";

/** Filters and page of an endpoint's deliveries list. */
export interface DeliveryListQuery extends KeysetQuery {
  status?: DeliveryStatus;
  event_type?: string;
}

/** What a replay reads: a window of events (inclusive), of some types, where its endpoint would have been sent them. */
export interface EventWindow extends KeysetQuery {
  from: string;
  to: string;
  /** Only these types; every type when absent or empty. */
  types?: readonly string[];
  environment?: EventRecord["environment"];
  /** Only events of an account this application is installed on. */
  applicationId?: string;
}

/**
 * Events and their deliveries to endpoints, stored and read: an event and its fan-out written in the
 * caller's transaction, a replay's deliveries added, an endpoint's deliveries listed, the
 * events of a window read for a replay, and old events no delivery carries removed. Claims, attempts and due
 * times are `delivery-claims.ts`'s. A damaged delivery (or its event, or an attempt) is read as
 * `UnreadableRowError` naming it (named once through `unreadable`); lists and replays leave it out.
 */

/** Every change writes its event row. */
const insertEvent = preparedInsert("events", ["id", "type", "account_id", "environment", "data", "created_at"]);
export function createDeliveryRepository(unreadable?: UnreadableRows) {
  const reads = createDeliveryReads(unreadable);
  return {
    /**
     * Stores an event and, in the same transaction, one delivery of it to each of `endpoints` (in the state
     * and with the due time `toNewDelivery` gives: pending and due now for an active endpoint, held for a
     * paused one, skipped for an unverified or disabled one). Rolled back with the caller's change.
     */
    async recordEvent(tx: Tx, event: EventRecord, endpoints: readonly EndpointRecord[], options: { trigger?: "scheduled" | "test" } = {}): Promise<DeliveryRecord[]> {
      await insertEvent(tx, toEventRow(event));
      const made = endpoints.map((endpoint) => toNewDelivery(event, endpoint, event.timestamp, options.trigger));
      await insertDeliveries(tx, made);
      return made;
    },

    /** Stores one more delivery of an event already stored (a replay's, with an id of its own). */
    async addDelivery(q: Queries, delivery: DeliveryRecord): Promise<void> {
      await insertDeliveries(q, [delivery]);
    },

    /** The delivery with its attempts and event; with `endpointId`, only if it is that endpoint's. */
    get: reads.read,

    /** An endpoint's deliveries, newest first (`created_at`, then id), filtered by status and event type, a page at a time. */
    async list(q: Queries, endpointId: string, page: DeliveryListQuery): Promise<KeysetPage<DeliveryRecord>> {
      let query = q.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpointId);
      if (page.status) query = query.where("status", "=", page.status);
      if (page.event_type) query = query.where("event_type", "=", page.event_type);
      const listed = await selectKeysetPage(query, { key: "created_at", tiebreak: "id", descending: true, position: (row) => ({ value: row.created_at, id: row.id }) }, page);
      return { ...listed, items: await reads.loadReadable(q, listed.items) };
    },

    /**
     * Events of a window (`from <= timestamp <= to`), oldest first, a page at a time: for a replay, of the
     * types, environment and application's accounts it would have been sent.
     */
    async eventsSince(q: Queries, window: EventWindow): Promise<KeysetPage<EventRecord>> {
      let query = q.selectFrom("events").selectAll("events").where("events.created_at", ">=", window.from).where("events.created_at", "<=", window.to);
      if (window.types && window.types.length > 0) query = query.where("events.type", "in", [...window.types]);
      if (window.environment) query = query.where("events.environment", "=", window.environment);
      const appId = window.applicationId;
      if (appId !== undefined) {
        query = query.where((eb) =>
          eb.exists(eb.selectFrom("application_accounts as a").select("a.account_id").whereRef("a.account_id", "=", "events.account_id").where("a.application_id", "=", appId)),
        );
      }
      const listed = await selectKeysetPage(query, { key: "events.created_at", tiebreak: "events.id", descending: false, position: (row) => ({ value: row.created_at, id: row.id }) }, window);
      return { ...listed, items: readReadable(listed.items, reads.toEvent) };
    },

    /**
     * Deletes the events older than `time` that no delivery carries, and answers how many. A delivery shows
     * its event as its payload for as long as it is kept (its endpoint's life), so an event any delivery
     * references stays, pending or settled; the foreign key guarantees it, and this statement never meets it.
     */
    async deleteEventsBefore(q: Queries, time: string): Promise<number> {
      const result = await q
        .deleteFrom("events")
        .where("created_at", "<", time)
        .where((eb) => eb.not(eb.exists(eb.selectFrom("webhook_deliveries as d").select("d.id").whereRef("d.event_id", "=", "events.id"))))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

/** Events and deliveries in the database ({@link createDeliveryRepository}). */
export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;
