import { sql, type Selectable } from "kysely";
import type { Dialect, Queries, Tx } from "../db/database.js";
import type { WebhookTables } from "../db/tables/webhooks.js";
import type { QueueTable } from "../db/queue.js";
import { TEST_EVENT_TYPE } from "./attempt-outcome.js";
import { preparedInsert, preparedQuery, preparedStatement } from "../db/prepared-query.js";
import { isUnreadableRow, type UnreadableRows } from "../db/unreadable-rows.js";
import { createDeliveryReads, toAttemptRow, toStateColumns, type DeliveryState } from "./delivery-rows.js";
import type { AttemptRecord, DeliveryRecord } from "./records.js";

/**
 * How long a claim of a delivery holds: a process killed while attempting it loses its claim after this,
 * and another process takes the delivery over. An attempt's request times out well within it (15 s).
 */
export const DELIVERY_LEASE_MS = 30_000;

/** The deliveries as a queue table (`db/queue.ts`): for renewing a lease. Claims go through {@link DeliveryClaims.claimDue}. */
export const DELIVERY_QUEUE: QueueTable = { table: "webhook_deliveries", key: "id" };

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

/** What a manual retry did: marked the delivery, or found an attempt of it in flight (which then stands for the retry). */
export type RetryMark = { kind: "marked"; delivery: DeliveryRecord } | { kind: "in_flight"; delivery: DeliveryRecord };

/** The columns of a delivery's state ({@link toStateColumns}), in the order {@link writeStateOf} takes them. */
const STATE_COLUMNS = ["status", "scheduled_attempts", "auto_retry", "next_trigger", "skipped_reason", "updated_at", "due_at"] as const;

/** A claimed delivery's state, written (and its lease ended) only while the claim is `owner`'s. */
const writeStateOf = preparedStatement((q: Queries, id: string, owner: string, ...state: unknown[]) =>
  q
    .updateTable("webhook_deliveries")
    .set({ ...Object.fromEntries(STATE_COLUMNS.map((column, i) => [column, state[i]])), lease_owner: null, lease_expires_at: null } as never)
    .where("id", "=", id)
    .where("lease_owner", "=", owner),
);

const insertAttempt = preparedInsert("delivery_attempts", ["delivery_id", "number", "trigger", "started_at", "status_code", "latency_ms", "outcome", "error", "response_body", "truncated"]);

/**
 * The endpoints a claim may take from at `now`, earliest due first, at most `limit`: those with a due delivery
 * whose lease is free and fewer attempts in flight (`held`) than they allow.
 */
const candidatesDue = preparedQuery((_q: Queries, now: string, limit: number) =>
  sql<{ id: string; concurrency_limit: number; circuit_state: string; held: number }>`
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
    limit ${limit}`,
);

/** Per endpoint, through the indexes: its earliest due delivery not held (`free_due`), and its held ones (`first_lapse`, `held`). */
const dueTimes = preparedQuery((_q: Queries, now: string) =>
  sql<{ concurrency_limit: number; circuit_state: string; circuit_opens_until: string | null; free_due: string | null; first_lapse: string | null; held: number }>`
    select concurrency_limit, circuit_state, circuit_opens_until, free_due, first_lapse, held from (
      select e.concurrency_limit, e.circuit_state, e.circuit_opens_until,
        (select d.due_at from webhook_deliveries d
          where d.endpoint_id = e.id and d.due_at is not null and (d.lease_expires_at is null or d.lease_expires_at <= ${now})
          order by d.due_at limit 1) as free_due,
        (select min(l.lease_expires_at) from webhook_deliveries l
          where l.endpoint_id = e.id and l.lease_owner is not null and l.lease_expires_at > ${now} and l.due_at is not null) as first_lapse,
        (select count(*) from webhook_deliveries l
          where l.endpoint_id = e.id and l.lease_owner is not null and l.lease_expires_at > ${now} and l.due_at is not null) as held
      from webhook_endpoints e
    ) c
    where free_due is not null or first_lapse is not null`,
);

/**
 * The deliveries table as the queue of attempts. A pending delivery with a due time is claimed under a lease
 * by {@link claimDue}, which keeps each endpoint's attempts in flight within its `concurrency_limit` and sends
 * nothing to an endpoint whose circuit is open, across processes; the attempt and the delivery's next state
 * are then recorded by {@link recordAttempt} only if the claim is still the caller's. What an endpoint's
 * change does to the due times of its deliveries (held, released, deferred to a probe, skipped, retried by
 * hand) is here too: each leaves a delivery whose attempt is in flight to record its own result. A claimed
 * delivery that cannot be read (`UnreadableRowError`, named once through `unreadable`) is left held.
 */
export function createDeliveryClaims(dialect: Dialect, unreadable?: UnreadableRows) {
  const pg = dialect === "postgres";
  const reads = createDeliveryReads(unreadable);

  /** Writes a claimed delivery's new state and ends the claim; false (nothing written) when the claim is no longer `owner`'s. */
  async function writeState(tx: Tx, id: string, owner: string, state: DeliveryState): Promise<boolean> {
    const columns = toStateColumns(state);
    const result = await writeStateOf(tx, id, owner, ...STATE_COLUMNS.map((column) => columns[column]));
    return Number(result.numAffectedRows) === 1;
  }

  /** Up to `take` of an endpoint's due deliveries whose lease is free, earliest due first, claimed under `owner`'s lease; the rows as claimed. */
  const claimOfEndpoint = preparedQuery((q: Queries, owner: string, leaseUntil: string, endpointId: string, now: string, take: number) =>
    q
      .updateTable("webhook_deliveries")
      .set({ lease_owner: owner, lease_expires_at: leaseUntil })
      .where("id", "in", (eb) => {
        let due = eb
          .selectFrom("webhook_deliveries")
          .select("id")
          .where("endpoint_id", "=", endpointId)
          .where("due_at", "is not", null)
          .where("due_at", "<=", now)
          .where((w) => w.or([w("lease_expires_at", "is", null), w("lease_expires_at", "<=", now)]))
          .orderBy("due_at")
          .orderBy("id")
          .limit(take);
        if (pg) due = due.forUpdate().skipLocked();
        return due;
      })
      .returningAll(),
  );

  /** The endpoints `claimDue` may take from now, earliest due first, with their attempts in flight (held). */
  async function claimCandidates(tx: Tx, claim: DeliveryClaim) {
    const { now } = claim;
    const rows = await candidatesDue(tx, now, claim.limit);
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
      // The claimed rows as the claim left them (RETURNING *): read once, by the statement that claims them.
      const rows: Selectable<WebhookTables["webhook_deliveries"]>[] = [];
      for (const endpoint of candidates) {
        const probe = endpoint.circuit_state !== "closed";
        const take = Math.min((probe ? 1 : endpoint.concurrency_limit) - endpoint.held, claim.limit - claimed.length);
        if (take <= 0) continue;
        const taken = await claimOfEndpoint(tx, claim.owner, claim.leaseUntil, endpoint.id, claim.now, take);
        for (const row of taken) claimed.push({ id: row.id, due_at: row.due_at!, probe });
        rows.push(...taken);
        if (probe && taken.length > 0 && endpoint.circuit_state === "open") {
          await tx.updateTable("webhook_endpoints").set({ circuit_state: "half_open" }).where("id", "=", endpoint.id).execute();
        }
        if (claimed.length >= claim.limit) break;
      }
      if (claimed.length === 0) return [];
      claimed.sort((a, b) => (a.due_at < b.due_at ? -1 : a.due_at > b.due_at ? 1 : a.id < b.id ? -1 : 1));
      const loaded = await reads.load(tx, rows);
      // A damaged delivery is not attempted: its claim ends with it held (pending, not due), so it takes no
      // slot of its endpoint and is never claimed again until a retry makes it due. The others go out.
      const damaged = rows.filter((_, i) => isUnreadableRow(loaded[i])).map((row) => row.id);
      if (damaged.length > 0) await tx.updateTable("webhook_deliveries").set({ due_at: null, lease_owner: null, lease_expires_at: null }).where("id", "in", damaged).execute();
      const byId = new Map(loaded.flatMap((d) => (isUnreadableRow(d) ? [] : [[d.id, d] as const])));
      return claimed.flatMap((c) => {
        const delivery = byId.get(c.id);
        return delivery ? [{ delivery, probe: c.probe }] : [];
      });
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
      await insertAttempt(tx, toAttemptRow(id, attempt));
      return true;
    },

    /**
     * Ends a claim without an attempt (the endpoint was paused, unverified or disabled when the delivery's
     * turn came: held with no due time, or skipped); false when the claim is no longer `owner`'s.
     */
    releaseClaim: (tx: Tx, id: string, owner: string, state: DeliveryState): Promise<boolean> => writeState(tx, id, owner, state),

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
      const delivery = await reads.read(q, id, endpointId);
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
      // Per endpoint, through the indexes: its earliest due delivery not held (the due index, past the few
      // held ones), and its held ones (the leased index). Never a scan of every due row: after each batch of
      // a backlog the worker looks again.
      const rows = await dueTimes(q, now);
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
  };
}

/** The claims, attempts and due times of deliveries ({@link createDeliveryClaims}). */
export type DeliveryClaims = ReturnType<typeof createDeliveryClaims>;
