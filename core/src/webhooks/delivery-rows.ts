import type { Insertable, Selectable } from "kysely";
import { DELIVERY_STATUSES } from "@lp/contract";
import { toJson } from "../db/column-types.js";
import type { Queries } from "../db/database.js";
import type { WebhookTables } from "../db/tables/webhooks.js";
import { createRowReader, isUnreadableRow, JSON_OBJECT, readOrUnreadable, type ColumnRule, type UnreadableRowError, type UnreadableRows } from "../db/unreadable-rows.js";
import type { AttemptRecord, DeliveryRecord, EventRecord } from "./records.js";

type DeliveryRow = Selectable<WebhookTables["webhook_deliveries"]>;
type EventRow = Selectable<WebhookTables["events"]>;
type AttemptRow = Selectable<WebhookTables["delivery_attempts"]>;

/** The state of a delivery an attempt (or a decision not to send) leaves; `next_attempt_at` becomes its due time. */
export type DeliveryState = Pick<DeliveryRecord, "status" | "scheduled_attempts" | "auto_retry" | "next_trigger" | "next_attempt_at" | "skipped_reason" | "updated_at">;

/** Rows of a fan-out inserted by one statement: well under either engine's limit on bound parameters. */
const INSERT_CHUNK = 500;

/** What a delivery's row must hold (SQLite keeps whatever a hand edit puts in a column). */
const DELIVERY_RULES: Record<string, ColumnRule> = {
  endpoint_id: "text",
  event_id: "text",
  application_id: "text",
  event_type: "text",
  status: DELIVERY_STATUSES,
  scheduled_attempts: "integer",
  auto_retry: [0, 1],
  next_trigger: ["scheduled", "manual", "test"],
  skipped_reason: "text?",
  created_at: "text",
  updated_at: "text",
  due_at: "text?",
};
/** What an event's row must hold; its `data` is an object (the resource it is about). */
const EVENT_RULES: Record<string, ColumnRule> = { type: "text", account_id: "text?", environment: ["production", "test"], created_at: "text" };
const EVENT_DOCUMENTS = { data: JSON_OBJECT };
/** What an attempt's row must hold. */
const ATTEMPT_RULES: Record<string, ColumnRule> = {
  number: "integer",
  trigger: ["scheduled", "manual", "test"],
  started_at: "text",
  status_code: "integer?",
  latency_ms: "integer",
  outcome: ["succeeded", "failed"],
  error: "text?",
  response_body: "text?",
  truncated: [0, 1],
};

/**
 * Reads the rows of deliveries, their events and attempts as records, each checked: a damaged one is an
 * `UnreadableRowError` naming it (a delivery whose event or attempt is damaged cannot be shown either), named
 * in the log once through `unreadable`.
 */
export function createDeliveryReads(unreadable?: UnreadableRows) {
  const deliveryRows = createRowReader("delivery", "webhook_deliveries", unreadable);
  const eventRows = createRowReader("event", "events", unreadable);
  // An attempt is part of its delivery: its damage names the delivery, and the log the attempt's row.
  const attemptRows = createRowReader("delivery", "delivery_attempts", unreadable);

  /** An event's row as the body every delivery of it carries. */
  function toEvent(row: EventRow): EventRecord {
    const { data } = eventRows.read(row.id, row, EVENT_RULES, EVENT_DOCUMENTS);
    return { id: row.id, type: row.type, timestamp: row.created_at, account_id: row.account_id, environment: row.environment, data };
  }

  function toAttempt(row: AttemptRow): AttemptRecord {
    attemptRows.check(row.delivery_id, row, ATTEMPT_RULES, `${row.delivery_id}/${String(row.number)}`);
    return toAttemptRecord(row);
  }

  /** Deliveries' rows as records, with their events and attempts, in the order of `rows`: a damaged one as its error. */
  async function load(q: Queries, rows: DeliveryRow[]): Promise<Array<DeliveryRecord | UnreadableRowError>> {
    if (rows.length === 0) return [];
    const eventIds = [...new Set(rows.map((r) => r.event_id))];
    const [events, attempts] = await Promise.all([
      q.selectFrom("events").selectAll().where("id", "in", eventIds).execute(),
      q.selectFrom("delivery_attempts").selectAll().where("delivery_id", "in", rows.map((r) => r.id)).orderBy("delivery_id").orderBy("number").execute(),
    ]);
    const eventById = new Map(events.map((e) => [e.id, readOrUnreadable(() => toEvent(e))]));
    const attemptsOf = new Map<string, Array<AttemptRecord | UnreadableRowError>>();
    for (const a of attempts) {
      const attempt = readOrUnreadable(() => toAttempt(a));
      const list = attemptsOf.get(a.delivery_id);
      if (list) list.push(attempt);
      else attemptsOf.set(a.delivery_id, [attempt]);
    }
    return rows.map((row) =>
      readOrUnreadable(() => {
        deliveryRows.check(row.id, row, DELIVERY_RULES);
        const payload = eventById.get(row.event_id)!;
        const own = attemptsOf.get(row.id) ?? [];
        const damaged = [payload, ...own].find(isUnreadableRow);
        if (damaged) throw damaged;
        return toDeliveryRecord(row, payload as EventRecord, own as AttemptRecord[]);
      }),
    );
  }

  return {
    load,
    toEvent,
    /** Deliveries' rows as records, in the order of `rows`, those that are damaged left out. */
    async loadReadable(q: Queries, rows: DeliveryRow[]): Promise<DeliveryRecord[]> {
      return (await load(q, rows)).filter((d): d is DeliveryRecord => !isUnreadableRow(d));
    },
    /** The delivery with its attempts and event; with `endpointId`, only if it is that endpoint's. Throws for a damaged one. */
    async read(q: Queries, id: string, endpointId?: string): Promise<DeliveryRecord | null> {
      let query = q.selectFrom("webhook_deliveries").selectAll().where("id", "=", id);
      if (endpointId !== undefined) query = query.where("endpoint_id", "=", endpointId);
      const row = await query.executeTakeFirst();
      if (!row) return null;
      const [delivery] = await load(q, [row]);
      if (isUnreadableRow(delivery)) throw delivery;
      return delivery!;
    },
  };
}

/** A {@link createDeliveryReads}. */
export type DeliveryReads = ReturnType<typeof createDeliveryReads>;

/** Stores deliveries as their records give them (a pending one due at its `next_attempt_at`, claimed by no one). */
export async function insertDeliveries(q: Queries, deliveries: readonly DeliveryRecord[]): Promise<void> {
  for (let i = 0; i < deliveries.length; i += INSERT_CHUNK) {
    await q.insertInto("webhook_deliveries").values(deliveries.slice(i, i + INSERT_CHUNK).map(toDeliveryRow)).execute();
  }
}

/** An event's row. */
export function toEventRow(e: EventRecord): EventRow {
  return { id: e.id, type: e.type, account_id: e.account_id, environment: e.environment, data: toJson(e.data), created_at: e.timestamp };
}

/** The columns of a delivery's state, its due time among them. */
export function toStateColumns(state: DeliveryState) {
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

/** An attempt's row, as one of the delivery `deliveryId`. */
export function toAttemptRow(deliveryId: string, a: AttemptRecord): AttemptRow {
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

/** A delivery's row, unclaimed, due at its next attempt when it is pending (its attempts are rows of their own). */
export function toDeliveryRow(d: Omit<DeliveryRecord, "attempts" | "payload">): Insertable<WebhookTables["webhook_deliveries"]> {
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
