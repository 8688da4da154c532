import type { Selectable } from "kysely";
import { toJson } from "../db/column-types.js";
import type { Dialect, Queries, Tx } from "../db/database.js";
import { preparedQuery } from "../db/prepared-query.js";
import type { WebhookTables } from "../db/tables/webhooks.js";
import { createRowReader, readOrUnreadable, readReadable, type ColumnRule, type JsonShape, type RowReader, type UnreadableRowError, type UnreadableRows } from "../db/unreadable-rows.js";
import { selectKeysetPage, type KeysetPage, type KeysetQuery } from "../lists/keyset-page.js";
import type { DeliveryTarget, EndpointRecord } from "./records.js";

type EndpointRow = Selectable<WebhookTables["webhook_endpoints"]>;

/** What an endpoint's row must hold (SQLite keeps whatever a hand edit puts in a column). */
const ENDPOINT_RULES: Record<string, ColumnRule> = {
  application_id: "text",
  url: "text",
  environment: ["production", "test"],
  concurrency_limit: "integer",
  status: ["pending_verification", "active", "paused", "disabled"],
  disabled_reason: ["manual", "gone", "circuit_breaker", null],
  secret: "text",
  previous_secret: "text?",
  previous_secret_expires_at: "text?",
  circuit_state: ["closed", "open", "half_open"],
  circuit_consecutive_failures: "integer",
  circuit_reopen_count: "integer",
  circuit_opens_until: "text?",
  created_at: "text",
  updated_at: "text",
};
/** The last verification: null before the first. */
const LAST_VERIFICATION: JsonShape = {
  what: "a verification's outcome",
  nullable: true,
  fields: { outcome: ["succeeded", "failed"], status_code: "integer?", latency_ms: "integer", error: "text?", at: "text" },
};

/**
 * What an endpoint change may set; absent fields are left as stored. `events` replaces the subscriptions
 * whole, `circuit` the circuit whole.
 */
export type EndpointChanges = Partial<Omit<EndpointRecord, "id" | "application_id" | "environment" | "created_at">>;

/** Who a fan-out of an event goes to: the event's type, environment and account. */
export interface EventAudience {
  type: string;
  environment: EndpointRecord["environment"];
  account_id: string | null;
}

/**
 * The webhook endpoints in the database: a row each in `webhook_endpoints` (the circuit as columns) and a row
 * per subscribed event type in `webhook_endpoint_events`. Methods that write several rows take a transaction;
 * the others take the database or a transaction. A read-change-write of one endpoint (its circuit after an
 * attempt, a PATCH, a rotation) reads it with {@link lock}, which holds its row on PostgreSQL until the
 * transaction ends; SQLite runs one transaction at a time. A damaged endpoint is read as `UnreadableRowError`
 * naming it (named once through `unreadable`); lists and fan-outs leave it out.
 */
/** The endpoints an event of an account's goes to (every change's event asks), oldest first. */
const subscribedEndpoints = preparedQuery((q: Queries, accountId: string, type: string, environment: EndpointRecord["environment"]) =>
  q
    .selectFrom("webhook_endpoint_events as s")
    .innerJoin("webhook_endpoints as e", "e.id", "s.endpoint_id")
    .innerJoin("application_accounts as a", (join) => join.onRef("a.application_id", "=", "e.application_id").on("a.account_id", "=", accountId))
    .selectAll("e")
    .where("s.event_type", "=", type)
    .where("e.environment", "=", environment)
    .orderBy("e.created_at")
    .orderBy("e.id"),
);

export function createEndpointRepository(dialect: Dialect, unreadable?: UnreadableRows) {
  const endpointRows = createRowReader("webhook endpoint", "webhook_endpoints", unreadable);
  /** The endpoint `id`'s row for a change in the caller's transaction: locked on PostgreSQL (see `lock`). */
  const lockedRow = preparedQuery((q: Queries, id: string) => {
    const query = q.selectFrom("webhook_endpoints").selectAll().where("id", "=", id);
    return dialect === "postgres" ? query.forNoKeyUpdate() : query;
  });

  /** The endpoints' records, in the order of `rows`; with `skip`, those that are damaged left out, else the first throws. */
  async function withEvents(q: Queries, rows: EndpointRow[], skip = false): Promise<EndpointRecord[]> {
    const events = await subscriptionsOf(q, rows);
    const read = (row: EndpointRow) => toEndpointRecord(row, events.get(row.id) ?? [], endpointRows);
    return skip ? readReadable(rows, read) : rows.map(read);
  }

  /** The event types each of the endpoints of `rows` subscribes to, in order. */
  async function subscriptionsOf(q: Queries, rows: EndpointRow[]): Promise<Map<string, unknown[]>> {
    if (rows.length === 0) return new Map();
    const subscriptions = await q
      .selectFrom("webhook_endpoint_events")
      .select(["endpoint_id", "event_type"])
      .where("endpoint_id", "in", rows.map((r) => r.id))
      .orderBy("endpoint_id")
      .orderBy("position")
      .execute();
    const events = new Map<string, unknown[]>();
    for (const s of subscriptions) {
      const list = events.get(s.endpoint_id);
      if (list) list.push(s.event_type);
      else events.set(s.endpoint_id, [s.event_type]);
    }
    return events;
  }

  async function one(q: Queries, row: EndpointRow | undefined): Promise<EndpointRecord | null> {
    return row ? (await withEvents(q, [row]))[0] : null;
  }

  async function insertEvents(tx: Tx, endpointId: string, events: readonly string[]): Promise<void> {
    if (events.length === 0) return;
    await tx
      .insertInto("webhook_endpoint_events")
      .values(events.map((event_type, position) => ({ endpoint_id: endpointId, event_type, position })))
      .execute();
  }

  return {
    /** Stores a new endpoint and its subscriptions. */
    async insert(tx: Tx, endpoint: EndpointRecord): Promise<void> {
      await tx.insertInto("webhook_endpoints").values(toEndpointRow(endpoint)).execute();
      await insertEvents(tx, endpoint.id, endpoint.events);
    },

    /** The endpoint `id`; with `applicationId`, only if that application owns it (another's is not found). */
    async get(q: Queries, id: string, applicationId?: string): Promise<EndpointRecord | null> {
      let query = q.selectFrom("webhook_endpoints").selectAll().where("id", "=", id);
      if (applicationId !== undefined) query = query.where("application_id", "=", applicationId);
      return one(q, await query.executeTakeFirst());
    },

    /**
     * The endpoint `id` for a change in this transaction: on PostgreSQL its row is locked until the
     * transaction ends, so changes of one endpoint (the engine's circuit, a PATCH, a rotation, in any
     * process) apply one after another, each to what the one before wrote. The lock is `FOR NO KEY UPDATE`:
     * no change touches the key, and a fan-out inserting deliveries of the endpoint (whose foreign key takes
     * `FOR KEY SHARE`) does not wait for it.
     */
    async lock(tx: Tx, id: string): Promise<EndpointRecord | null> {
      return one(tx, (await lockedRow(tx, id))[0]);
    },

    /**
     * The endpoints `ids` as their deliveries' attempts use them, without their subscriptions, in one
     * statement: by id, a damaged one as its `UnreadableRowError`; an id with no endpoint is absent.
     */
    async targets(q: Queries, ids: readonly string[]): Promise<Map<string, DeliveryTarget | UnreadableRowError>> {
      if (ids.length === 0) return new Map();
      const rows = await q.selectFrom("webhook_endpoints").selectAll().where("id", "in", [...ids]).execute();
      return new Map(rows.map((row) => [row.id, readOrUnreadable(() => toDeliveryTarget(row, endpointRows))]));
    },

    /** The endpoint `id` as {@link lock} holds it, without its subscriptions: for a change of its circuit or status by the engine. */
    async lockTarget(tx: Tx, id: string): Promise<DeliveryTarget | null> {
      const [row] = await lockedRow(tx, id);
      return row ? toDeliveryTarget(row, endpointRows) : null;
    },

    /**
     * How many endpoints the application has, its row locked on PostgreSQL until the transaction ends: the
     * creates of one application count and insert one at a time, so a cap on the count holds.
     */
    async countLocked(tx: Tx, applicationId: string): Promise<number> {
      if (dialect === "postgres") await tx.selectFrom("applications").select("application_id").where("application_id", "=", applicationId).forUpdate().execute();
      const { n } = await tx.selectFrom("webhook_endpoints").select((eb) => eb.fn.countAll<number>().as("n")).where("application_id", "=", applicationId).executeTakeFirstOrThrow();
      return Number(n);
    },

    /** The application's endpoints, newest first (`created_at`, then id), a page at a time. */
    async list(q: Queries, applicationId: string, page: KeysetQuery): Promise<KeysetPage<EndpointRecord>> {
      const query = q.selectFrom("webhook_endpoints").selectAll().where("application_id", "=", applicationId);
      const listed = await selectKeysetPage(query, { key: "created_at", tiebreak: "id", descending: true, position: (row) => ({ value: row.created_at, id: row.id }) }, page);
      return { ...listed, items: await withEvents(q, listed.items, true) };
    },

    /**
     * The endpoints an event goes to: subscribed to its type, in its environment, of an application installed
     * on its account (none for an event of no account), oldest first.
     */
    async subscribers(q: Queries, event: EventAudience): Promise<EndpointRecord[]> {
      if (event.account_id === null) return [];
      const rows = await subscribedEndpoints(q, event.account_id, event.type, event.environment);
      // A damaged endpoint is sent nothing, and the change that caused the event goes on.
      return withEvents(q, rows, true);
    },

    /** Applies `changes` to the endpoint and answers it as stored now; null when there is no such endpoint. */
    async update(tx: Tx, id: string, changes: EndpointChanges): Promise<EndpointRecord | null> {
      const set = toChangedColumns(changes);
      if (Object.keys(set).length > 0) {
        const result = await tx.updateTable("webhook_endpoints").set(set).where("id", "=", id).executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return null;
      } else if (!(await tx.selectFrom("webhook_endpoints").select("id").where("id", "=", id).executeTakeFirst())) {
        return null;
      }
      if (changes.events) {
        await tx.deleteFrom("webhook_endpoint_events").where("endpoint_id", "=", id).execute();
        await insertEvents(tx, id, changes.events);
      }
      return one(tx, await tx.selectFrom("webhook_endpoints").selectAll().where("id", "=", id).executeTakeFirst());
    },

    /** Deletes the endpoint, its subscriptions, deliveries and attempts (foreign keys cascade); false when there was none. */
    async remove(q: Queries, id: string, applicationId?: string): Promise<boolean> {
      let query = q.deleteFrom("webhook_endpoints").where("id", "=", id);
      if (applicationId !== undefined) query = query.where("application_id", "=", applicationId);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
  };
}

/** The webhook endpoints in the database ({@link createEndpointRepository}). */
export type EndpointRepository = ReturnType<typeof createEndpointRepository>;

/** An endpoint row and its subscriptions as the record the engine works with, checked by `rows`. */
function toEndpointRecord(row: EndpointRow, events: unknown[], rows: RowReader): EndpointRecord {
  const target = toDeliveryTarget(row, rows);
  const notText = events.find((type) => typeof type !== "string");
  if (notText !== undefined) throw rows.fail(row.id, `a subscribed event type is ${typeof notText}, not text`);
  // The order of the record's fields as before the subscriptions were read apart: an export writes them so.
  const { id, application_id, url, ...rest } = target;
  return { id, application_id, url, events: events as string[], ...rest };
}

/** An endpoint row as its deliveries' attempts use it (no subscriptions), checked by `rows`. */
function toDeliveryTarget(row: EndpointRow, rows: RowReader): DeliveryTarget {
  const { last_verification } = rows.read(row.id, row, ENDPOINT_RULES, { last_verification: LAST_VERIFICATION });
  return {
    id: row.id,
    application_id: row.application_id,
    url: row.url,
    environment: row.environment,
    concurrency_limit: row.concurrency_limit,
    status: row.status,
    disabled_reason: row.disabled_reason,
    secret: row.secret,
    previous_secret: row.previous_secret,
    previous_secret_expires_at: row.previous_secret_expires_at,
    circuit: {
      state: row.circuit_state,
      consecutive_failures: row.circuit_consecutive_failures,
      reopen_count: row.circuit_reopen_count,
      opens_until: row.circuit_opens_until,
    },
    last_verification: last_verification as DeliveryTarget["last_verification"],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toEndpointRow(e: EndpointRecord): EndpointRow {
  return {
    id: e.id,
    application_id: e.application_id,
    environment: e.environment,
    created_at: e.created_at,
    ...(toChangedColumns(e) as Omit<EndpointRow, "id" | "application_id" | "environment" | "created_at">),
  };
}

/** The columns `changes` sets (the circuit's four, the verification as JSON). */
function toChangedColumns(changes: EndpointChanges): Partial<EndpointRow> {
  const set: Partial<EndpointRow> = {};
  if (changes.url !== undefined) set.url = changes.url;
  if (changes.concurrency_limit !== undefined) set.concurrency_limit = changes.concurrency_limit;
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.disabled_reason !== undefined) set.disabled_reason = changes.disabled_reason;
  if (changes.secret !== undefined) set.secret = changes.secret;
  if (changes.previous_secret !== undefined) set.previous_secret = changes.previous_secret;
  if (changes.previous_secret_expires_at !== undefined) set.previous_secret_expires_at = changes.previous_secret_expires_at;
  if (changes.circuit !== undefined) {
    set.circuit_state = changes.circuit.state;
    set.circuit_consecutive_failures = changes.circuit.consecutive_failures;
    set.circuit_reopen_count = changes.circuit.reopen_count;
    set.circuit_opens_until = changes.circuit.opens_until;
  }
  if (changes.last_verification !== undefined) set.last_verification = changes.last_verification === null ? null : toJson(changes.last_verification);
  if (changes.updated_at !== undefined) set.updated_at = changes.updated_at;
  return set;
}
