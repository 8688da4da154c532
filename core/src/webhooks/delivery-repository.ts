import { sql, type Insertable, type Selectable } from "kysely";
import { fromJson, toJson } from "../db/column-types.js";
import type { Dialect, Queries, Tx } from "../db/database.js";
import { renewLease, type QueueTable } from "../db/queue.js";
import type { WebhookTables } from "../db/tables/webhooks.js";
import { selectKeysetPage, type KeysetPage, type KeysetQuery } from "../lists/keyset-page.js";
import { TEST_EVENT_TYPE } from "./attempt-outcome.js";
import { toNewDelivery, type AttemptRecord, type DeliveryRecord, type DeliveryStatus, type EndpointRecord, type EventRecord } from "./records.js";

type DeliveryRow = Selectable<WebhookTables["webhook_deliveries"]>;
type EventRow = Selectable<WebhookTables["events"]>;
type AttemptRow = Selectable<WebhookTables["delivery_attempts"]>;

/**
 * How long a claim of a delivery holds: a process killed while attempting it loses its claim after this,
 * and another process takes the delivery over. An attempt's request times out well within it (15 s).
 */
export const DELIVERY_LEASE_MS = 30_000;

/** The deliveries as a queue table (`db/queue.ts`): for renewing a lease. Claims go through {@link DeliveryRepository.claimDue}. */
export const DELIVERY_QUEUE: QueueTable = { table: "webhook_deliveries", key: "id" };

/** Rows of a fan-out inserted by one statement: well under either engine's limit on bound parameters. */
const INSERT_CHUNK = 500;

/** A claimed delivery, and whether its attempt is its endpoint's circuit probe (the circuit was not closed). */
export interface ClaimedDelivery {
  delivery: DeliveryRecord;
  probe: boolean;
}

/** What a claim asks for (times as ISO text by the core's clock). */
export interface DeliveryClaim {
  now: string;
  /** Who claims (a process's id). */
  owner: string;
  /** When the claim lapses unless renewed (now + {@link DELIVERY_LEASE_MS}). */
  leaseUntil: string;
  /** At most this many deliveries, across endpoints. */
  limit: number;
}

/** The state of a delivery an attempt (or a decision not to send) leaves; `next_attempt_at` becomes its due time. */
export type DeliveryState = Pick<DeliveryRecord, "status" | "scheduled_attempts" | "auto_retry" | "next_trigger" | "next_attempt_at" | "skipped_reason" | "updated_at">;

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

/** What a manual retry did: marked the delivery, or found an attempt of it in flight (which then stands for the retry). */
export type RetryMark = { kind: "marked"; delivery: DeliveryRecord } | { kind: "in_flight"; delivery: DeliveryRecord };

/**
 * Events, the deliveries of each to endpoints, and their attempts, in the database. The deliveries table is
 * the queue of attempts: a pending delivery with a due time is claimed under a lease by {@link claimDue},
 * which keeps each endpoint's attempts in flight within its `concurrency_limit` and sends nothing to an
 * endpoint whose circuit is open, across processes; the attempt and the delivery's next state are then
 * recorded by {@link recordAttempt} only if the claim is still the caller's.
 */
export function createDeliveryRepository(dialect: Dialect) {
  const pg = dialect === "postgres";

  /** Deliveries' rows as records, with their events and attempts, in the order of `rows`. */
  async function load(q: Queries, rows: DeliveryRow[]): Promise<DeliveryRecord[]> {
    if (rows.length === 0) return [];
    const eventIds = [...new Set(rows.map((r) => r.event_id))];
    const [events, attempts] = await Promise.all([
      q.selectFrom("events").selectAll().where("id", "in", eventIds).execute(),
      q.selectFrom("delivery_attempts").selectAll().where("delivery_id", "in", rows.map((r) => r.id)).orderBy("delivery_id").orderBy("number").execute(),
    ]);
    const eventById = new Map(events.map((e) => [e.id, toEventRecord(e)]));
    const attemptsOf = new Map<string, AttemptRecord[]>();
    for (const a of attempts) {
      const list = attemptsOf.get(a.delivery_id);
      if (list) list.push(toAttemptRecord(a));
      else attemptsOf.set(a.delivery_id, [toAttemptRecord(a)]);
    }
    return rows.map((row) => toDeliveryRecord(row, eventById.get(row.event_id)!, attemptsOf.get(row.id) ?? []));
  }

  async function get(q: Queries, id: string, endpointId?: string): Promise<DeliveryRecord | null> {
    let query = q.selectFrom("webhook_deliveries").selectAll().where("id", "=", id);
    if (endpointId !== undefined) query = query.where("endpoint_id", "=", endpointId);
    const row = await query.executeTakeFirst();
    return row ? (await load(q, [row]))[0] : null;
  }

  async function insertDeliveries(q: Queries, deliveries: readonly DeliveryRecord[]): Promise<void> {
    for (let i = 0; i < deliveries.length; i += INSERT_CHUNK) {
      await q.insertInto("webhook_deliveries").values(deliveries.slice(i, i + INSERT_CHUNK).map(toDeliveryRow)).execute();
    }
  }

  /** Writes a claimed delivery's new state and ends the claim; false (nothing written) when the claim is no longer `owner`'s. */
  async function writeState(tx: Tx, id: string, owner: string, state: DeliveryState): Promise<boolean> {
    const result = await tx
      .updateTable("webhook_deliveries")
      .set({ ...toStateColumns(state), lease_owner: null, lease_expires_at: null })
      .where("id", "=", id)
      .where("lease_owner", "=", owner)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The endpoints `claimDue` may take from now, earliest due first, with their attempts in flight (held). */
  async function claimCandidates(tx: Tx, claim: DeliveryClaim) {
    const { now } = claim;
    const { rows } = await sql<{ id: string; concurrency_limit: number; circuit_state: string; held: number }>`
      select id, concurrency_limit, circuit_state, held from (
        select e.id, e.concurrency_limit, e.circuit_state,
          (select count(*) from webhook_deliveries l
            where l.endpoint_id = e.id and l.lease_owner is not null and l.lease_expires_at > ${now}) as held,
          (select d.due_at from webhook_deliveries d
            where d.endpoint_id = e.id and d.due_at is not null and d.due_at <= ${now}
              and (d.lease_expires_at is null or d.lease_expires_at <= ${now})
            order by d.due_at limit 1) as first_due
        from webhook_endpoints e
        where e.circuit_state = 'closed' or e.circuit_opens_until is null or e.circuit_opens_until <= ${now}
      ) c
      where first_due is not null and held < case when circuit_state = 'closed' then concurrency_limit else 1 end
      order by first_due, id
      limit ${claim.limit}`.execute(tx);
    const candidates = rows.map((r) => ({ id: r.id, concurrency_limit: Number(r.concurrency_limit), circuit_state: r.circuit_state, held: Number(r.held) }));
    if (!pg || candidates.length === 0) return candidates;
    // On PostgreSQL, the candidates' rows are locked (those another claim or change holds are skipped; a
    // fan-out's inserts hold none, their foreign key's FOR KEY SHARE lets FOR NO KEY UPDATE through), read again as
    // they are now, and their attempts in flight counted again after the locks: a claim of the endpoint
    // that committed just before is counted, and none can commit until this one does.
    const order = new Map(candidates.map((c, i) => [c.id, i]));
    const locked = await tx
      .selectFrom("webhook_endpoints")
      .select(["id", "concurrency_limit", "circuit_state"])
      .where("id", "in", candidates.map((c) => c.id))
      .where((eb) => eb.or([eb("circuit_state", "=", "closed"), eb("circuit_opens_until", "is", null), eb("circuit_opens_until", "<=", now)]))
      .forNoKeyUpdate()
      .skipLocked()
      .execute();
    if (locked.length === 0) return [];
    const held = await tx
      .selectFrom("webhook_deliveries")
      .select((eb) => ["endpoint_id", eb.fn.countAll<number>().as("n")])
      .where("endpoint_id", "in", locked.map((e) => e.id))
      .where("lease_owner", "is not", null)
      .where("lease_expires_at", ">", now)
      .groupBy("endpoint_id")
      .execute();
    const heldBy = new Map(held.map((h) => [h.endpoint_id, Number(h.n)]));
    return locked
      .map((e) => ({ id: e.id, concurrency_limit: e.concurrency_limit, circuit_state: e.circuit_state as string, held: heldBy.get(e.id) ?? 0 }))
      .sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }

  return {
    /**
     * Stores an event and, in the same transaction, one delivery of it to each of `endpoints` (in the state
     * and with the due time `toNewDelivery` gives: pending and due now for an active endpoint, held for a
     * paused one, skipped for an unverified or disabled one). Rolled back with the caller's change.
     */
    async recordEvent(tx: Tx, event: EventRecord, endpoints: readonly EndpointRecord[], options: { trigger?: "scheduled" | "test" } = {}): Promise<DeliveryRecord[]> {
      await tx.insertInto("events").values(toEventRow(event)).execute();
      const made = endpoints.map((endpoint) => toNewDelivery(event, endpoint, event.timestamp, options.trigger));
      await insertDeliveries(tx, made);
      return made;
    },

    /** Stores one more delivery of an event already stored (a replay's, with an id of its own). */
    async addDelivery(q: Queries, delivery: DeliveryRecord): Promise<void> {
      await insertDeliveries(q, [delivery]);
    },

    /**
     * Stores a delivery as an export gave it: its event (from its payload, once for every delivery of it), the
     * delivery in its state (a pending one due at its `next_attempt_at`, claimed by no one) and its attempts.
     */
    async importDelivery(tx: Tx, delivery: DeliveryRecord): Promise<void> {
      await tx.insertInto("events").values(toEventRow(delivery.payload)).onConflict((c) => c.column("id").doNothing()).execute();
      await insertDeliveries(tx, [delivery]);
      if (delivery.attempts.length > 0) await tx.insertInto("delivery_attempts").values(delivery.attempts.map((a) => toAttemptRow(delivery.id, a))).execute();
    },

    /** The delivery with its attempts and event; with `endpointId`, only if it is that endpoint's. */
    get,

    /** An endpoint's deliveries, newest first (`created_at`, then id), filtered by status and event type, a page at a time. */
    async list(q: Queries, endpointId: string, page: DeliveryListQuery): Promise<KeysetPage<DeliveryRecord>> {
      let query = q.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpointId);
      if (page.status) query = query.where("status", "=", page.status);
      if (page.event_type) query = query.where("event_type", "=", page.event_type);
      const listed = await selectKeysetPage(query, { key: "created_at", tiebreak: "id", descending: true, position: (row) => ({ value: row.created_at, id: row.id }) }, page);
      return { ...listed, items: await load(q, listed.items) };
    },

    /**
     * Claims up to `limit` due deliveries under `owner`'s lease, earliest due first, and answers them. An
     * endpoint gets no more than its `concurrency_limit` less the attempts in flight for it (leases not yet
     * lapsed, in any process); an endpoint whose circuit is open gets none until `opens_until`, and then
     * one: its probe (the circuit turns half-open, and stays at one attempt in flight until a result closes
     * or re-opens it). A lapsed lease's delivery is claimed again: its process is taken to be dead. On
     * PostgreSQL the endpoints' rows are locked `FOR UPDATE SKIP LOCKED`: processes claiming at once take
     * different endpoints, and never wait on each other.
     */
    async claimDue(tx: Tx, claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
      const candidates = await claimCandidates(tx, claim);
      const claimed: Array<{ id: string; due_at: string; probe: boolean }> = [];
      for (const endpoint of candidates) {
        const probe = endpoint.circuit_state !== "closed";
        const take = Math.min((probe ? 1 : endpoint.concurrency_limit) - endpoint.held, claim.limit - claimed.length);
        if (take <= 0) continue;
        const rows = await tx
          .updateTable("webhook_deliveries")
          .set({ lease_owner: claim.owner, lease_expires_at: claim.leaseUntil })
          .where("id", "in", (eb) => {
            let due = eb
              .selectFrom("webhook_deliveries")
              .select("id")
              .where("endpoint_id", "=", endpoint.id)
              .where("due_at", "is not", null)
              .where("due_at", "<=", claim.now)
              .where((w) => w.or([w("lease_expires_at", "is", null), w("lease_expires_at", "<=", claim.now)]))
              .orderBy("due_at")
              .orderBy("id")
              .limit(take);
            if (pg) due = due.forUpdate().skipLocked();
            return due;
          })
          .returning(["id", "due_at"])
          .execute();
        for (const row of rows) claimed.push({ id: row.id, due_at: row.due_at!, probe });
        if (probe && rows.length > 0 && endpoint.circuit_state === "open") {
          await tx.updateTable("webhook_endpoints").set({ circuit_state: "half_open" }).where("id", "=", endpoint.id).execute();
        }
        if (claimed.length >= claim.limit) break;
      }
      if (claimed.length === 0) return [];
      claimed.sort((a, b) => (a.due_at < b.due_at ? -1 : a.due_at > b.due_at ? 1 : a.id < b.id ? -1 : 1));
      const rows = await tx.selectFrom("webhook_deliveries").selectAll().where("id", "in", claimed.map((c) => c.id)).execute();
      const byId = new Map((await load(tx, rows)).map((d) => [d.id, d]));
      return claimed.map((c) => ({ delivery: byId.get(c.id)!, probe: c.probe }));
    },

    /**
     * Records an attempt of a claimed delivery and the state it leaves (`next_attempt_at` its next due time,
     * null once settled), and ends the claim, in the caller's transaction: only if the claim is still
     * `owner`'s, else nothing is written and false comes back (another process took the delivery over and
     * makes its own attempts; this one's result is dropped, as it would be had the process died). A lease
     * that lapsed but that no one took over is still the owner's: no one else can have sent the delivery.
     * When the same transaction changes the endpoint's circuit, lock the endpoint first
     * (`EndpointRepository.lock`): endpoint, then delivery, the order in which an endpoint's delete takes them.
     */
    async recordAttempt(tx: Tx, id: string, owner: string, attempt: AttemptRecord, state: DeliveryState): Promise<boolean> {
      if (!(await writeState(tx, id, owner, state))) return false;
      await tx.insertInto("delivery_attempts").values(toAttemptRow(id, attempt)).execute();
      return true;
    },

    /**
     * Ends a claim without an attempt (the endpoint was paused, unverified or disabled when the delivery's
     * turn came: held with no due time, or skipped); false when the claim is no longer `owner`'s.
     */
    releaseClaim: (tx: Tx, id: string, owner: string, state: DeliveryState): Promise<boolean> => writeState(tx, id, owner, state),

    /** Extends `owner`'s claim of a delivery whose attempt is still running; false when it lapsed and was taken over. */
    renewLease: (q: Queries, id: string, owner: string, leaseUntil: string): Promise<boolean> => renewLease(q, DELIVERY_QUEUE, id, owner, leaseUntil),

    /**
     * Marks a stored delivery pending for one manual attempt, at `at`, due at `dueAt` (later when its
     * endpoint's circuit holds attempts back). One whose attempt is in flight (its lease not lapsed) is left
     * as it is: that attempt is the retry, and its result is recorded as usual. Null when the endpoint has no
     * such delivery.
     */
    async markForRetry(q: Queries, endpointId: string, id: string, at: string, dueAt = at): Promise<RetryMark | null> {
      const result = await q
        .updateTable("webhook_deliveries")
        .set({ status: "pending", next_trigger: "manual", due_at: dueAt, skipped_reason: null, updated_at: at, lease_owner: null, lease_expires_at: null })
        .where("id", "=", id)
        .where("endpoint_id", "=", endpointId)
        .where((eb) => eb.or([eb("lease_owner", "is", null), eb("lease_expires_at", "<=", at)]))
        .executeTakeFirst();
      const delivery = await get(q, id, endpointId);
      if (!delivery) return null;
      return { kind: Number(result.numUpdatedRows) === 1 ? "marked" : "in_flight", delivery };
    },

    /**
     * Makes the held deliveries of an endpoint (pending with no due time: it was paused or unverified) due at
     * `at`, once it is active again; answers how many.
     */
    async releaseHeld(q: Queries, endpointId: string, at: string): Promise<number> {
      const result = await q
        .updateTable("webhook_deliveries")
        .set({ due_at: at, updated_at: at })
        .where("endpoint_id", "=", endpointId)
        .where("status", "=", "pending")
        .where("due_at", "is", null)
        .where("lease_owner", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * Makes the endpoint's deliveries that are due before `until` due at `until` instead (its circuit opened,
     * and nothing goes out before it may probe), so each shows when it will really be attempted; one whose
     * attempt is in flight is left to record its own. Answers how many.
     */
    async deferDue(q: Queries, endpointId: string, until: string, at: string): Promise<number> {
      const result = await q
        .updateTable("webhook_deliveries")
        .set({ due_at: until, updated_at: at })
        .where("endpoint_id", "=", endpointId)
        .where("status", "=", "pending")
        .where("due_at", "<", until)
        .where("lease_owner", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * Skips the endpoint's deliveries that wait for an attempt (it was disabled: by its circuit, or a 410),
     * test deliveries excepted (they go whatever the status), and those in flight (they record their own
     * result). Held ones (no due time) stay held: only a verification brings them back. Answers how many.
     */
    async skipDue(q: Queries, endpointId: string, reason: string, at: string): Promise<number> {
      const result = await q
        .updateTable("webhook_deliveries")
        .set({ status: "skipped", skipped_reason: reason, due_at: null, updated_at: at })
        .where("endpoint_id", "=", endpointId)
        .where("status", "=", "pending")
        .where("due_at", "is not", null)
        .where("event_type", "!=", TEST_EVENT_TYPE)
        .where("lease_owner", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * The earliest time after `now` at which {@link claimDue} could take something, by what the database
     * holds: a due delivery's time, held back by its endpoint's open circuit and by its endpoint being at its
     * `concurrency_limit` (then the first of its leases to lapse); `now` when something is claimable already;
     * null when nothing is due. An attempt finishing frees a slot earlier: its process claims again then.
     */
    async nextDueAt(q: Queries, now: string): Promise<string | null> {
      const { rows } = await sql<{ concurrency_limit: number; circuit_state: string; circuit_opens_until: string | null; free_due: string | null; first_lapse: string | null; held: number }>`
        select e.concurrency_limit, e.circuit_state, e.circuit_opens_until,
          min(case when d.lease_expires_at is null or d.lease_expires_at <= ${now} then d.due_at end) as free_due,
          min(case when d.lease_expires_at > ${now} then d.lease_expires_at end) as first_lapse,
          sum(case when d.lease_expires_at > ${now} then 1 else 0 end) as held
        from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.due_at is not null
        group by e.id, e.concurrency_limit, e.circuit_state, e.circuit_opens_until`.execute(q);
      let next: string | null = null;
      const later = (a: string, b: string | null) => (b !== null && b > a ? b : a);
      for (const row of rows) {
        const closed = row.circuit_state === "closed";
        // An open circuit holds every claim of the endpoint back until it may probe.
        const gate = (at: string) => (closed ? at : later(at, row.circuit_opens_until));
        const full = Number(row.held) >= (closed ? Number(row.concurrency_limit) : 1);
        const times: string[] = [];
        if (row.free_due !== null) times.push(gate(full ? later(row.free_due, row.first_lapse) : row.free_due));
        // A lease that lapses makes its delivery claimable again.
        if (row.first_lapse !== null) times.push(gate(row.first_lapse));
        for (const at of times) if (next === null || at < next) next = at;
      }
      return next === null || next > now ? next : now;
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
      return { ...listed, items: listed.items.map(toEventRecord) };
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

/** Events, deliveries and attempts in the database ({@link createDeliveryRepository}). */
export type DeliveryRepository = ReturnType<typeof createDeliveryRepository>;

function toEventRow(e: EventRecord): EventRow {
  return { id: e.id, type: e.type, account_id: e.account_id, environment: e.environment, data: toJson(e.data), created_at: e.timestamp };
}

/** An event's row as the body every delivery of it carries. */
export function toEventRecord(row: EventRow): EventRecord {
  return { id: row.id, type: row.type, timestamp: row.created_at, account_id: row.account_id, environment: row.environment, data: fromJson(row.data) };
}

function toStateColumns(state: DeliveryState) {
  return {
    status: state.status,
    scheduled_attempts: state.scheduled_attempts,
    auto_retry: state.auto_retry ? 1 : 0,
    next_trigger: state.next_trigger,
    skipped_reason: state.skipped_reason,
    updated_at: state.updated_at,
    // Only a pending delivery has an attempt to make.
    due_at: state.status === "pending" ? state.next_attempt_at : null,
  };
}

function toDeliveryRow(d: DeliveryRecord): Insertable<WebhookTables["webhook_deliveries"]> {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    application_id: d.application_id,
    event_type: d.event_type,
    created_at: d.created_at,
    ...toStateColumns(d),
    lease_owner: null,
    lease_expires_at: null,
  };
}

function toDeliveryRecord(row: DeliveryRow, payload: EventRecord, attempts: AttemptRecord[]): DeliveryRecord {
  return {
    id: row.id,
    application_id: row.application_id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts,
    scheduled_attempts: row.scheduled_attempts,
    auto_retry: row.auto_retry === 1,
    next_trigger: row.next_trigger,
    next_attempt_at: row.due_at,
    skipped_reason: row.skipped_reason,
    payload,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toAttemptRow(deliveryId: string, a: AttemptRecord): AttemptRow {
  return {
    delivery_id: deliveryId,
    number: a.number,
    trigger: a.trigger,
    started_at: a.started_at,
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    outcome: a.outcome,
    error: a.error,
    response_body: a.response_body,
    truncated: a.truncated ? 1 : 0,
  };
}

function toAttemptRecord(row: AttemptRow): AttemptRecord {
  return {
    number: row.number,
    trigger: row.trigger,
    started_at: row.started_at,
    status_code: row.status_code,
    latency_ms: row.latency_ms,
    outcome: row.outcome,
    error: row.error,
    response_body: row.response_body,
    truncated: row.truncated === 1,
  };
}
