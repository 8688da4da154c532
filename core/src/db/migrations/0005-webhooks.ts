import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/**
 * Webhook endpoints (with the events they subscribe to and their circuit), the events the service emitted,
 * and the deliveries of events to endpoints with their attempts. The deliveries table is also the queue of
 * attempts: `due_at` is when the next attempt is due, `lease_owner` and `lease_expires_at` who is making it.
 */
export function webhooksMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("webhook_endpoints")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("application_id", "text", (c) => c.notNull().references("applications.application_id").onDelete("cascade"))
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("environment", "text", (c) => c.notNull().check(sql`environment in ('production', 'test')`))
        .addColumn("concurrency_limit", "integer", (c) => c.notNull().check(sql`concurrency_limit between 1 and 50`))
        .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending_verification', 'active', 'paused', 'disabled')`))
        .addColumn("disabled_reason", "text", (c) => c.check(sql`disabled_reason in ('manual', 'gone', 'circuit_breaker')`))
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("previous_secret", "text")
        .addColumn("previous_secret_expires_at", "text")
        .addColumn("circuit_state", "text", (c) => c.notNull().check(sql`circuit_state in ('closed', 'open', 'half_open')`))
        .addColumn("circuit_consecutive_failures", "integer", (c) => c.notNull())
        .addColumn("circuit_reopen_count", "integer", (c) => c.notNull())
        .addColumn("circuit_opens_until", "text")
        .addColumn("last_verification", t.json)
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();
      // GET /webhook-endpoints: an application's endpoints newest first, the id breaking ties (the cursor).
      await db.schema.createIndex("webhook_endpoints_by_application").on("webhook_endpoints").columns(["application_id", "created_at", "id"]).execute();

      // The subscriptions, a row each, so a fan-out finds an event type's endpoints by index.
      await db.schema
        .createTable("webhook_endpoint_events")
        .addColumn("endpoint_id", "text", (c) => c.notNull().references("webhook_endpoints.id").onDelete("cascade"))
        .addColumn("event_type", "text", (c) => c.notNull())
        // The order the partner gave them in, which the endpoint shows.
        .addColumn("position", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("webhook_endpoint_events_pk", ["endpoint_id", "event_type"])
        .execute();
      await db.schema.createIndex("webhook_endpoint_events_by_type").on("webhook_endpoint_events").columns(["event_type", "endpoint_id"]).execute();

      // Every event emitted, subscribed to or not: a replay sends an endpoint what it missed.
      await db.schema
        .createTable("events")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("account_id", "text")
        .addColumn("environment", "text", (c) => c.notNull().check(sql`environment in ('production', 'test')`))
        .addColumn("data", t.json, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      // Replay reads a window in time order; retention deletes from the oldest.
      await db.schema.createIndex("events_by_created").on("events").columns(["created_at", "id"]).execute();

      await db.schema
        .createTable("webhook_deliveries")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("endpoint_id", "text", (c) => c.notNull().references("webhook_endpoints.id").onDelete("cascade"))
        // No cascade: a delivery shows its event as its payload for as long as the delivery is kept.
        .addColumn("event_id", "text", (c) => c.notNull().references("events.id"))
        .addColumn("application_id", "text", (c) => c.notNull())
        .addColumn("event_type", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending', 'succeeded', 'failed', 'skipped')`))
        .addColumn("scheduled_attempts", "integer", (c) => c.notNull())
        .addColumn("auto_retry", "integer", (c) => c.notNull().check(sql`auto_retry in (0, 1)`))
        .addColumn("next_trigger", "text", (c) => c.notNull().check(sql`next_trigger in ('scheduled', 'manual', 'test')`))
        .addColumn("skipped_reason", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("due_at", "text")
        .addColumn("lease_owner", "text")
        .addColumn("lease_expires_at", "text")
        .execute();
      // GET .../deliveries newest first: unfiltered, by status, by event type (both filters: the status index).
      await db.schema.createIndex("webhook_deliveries_by_endpoint").on("webhook_deliveries").columns(["endpoint_id", "created_at", "id"]).execute();
      await db.schema.createIndex("webhook_deliveries_by_endpoint_status").on("webhook_deliveries").columns(["endpoint_id", "status", "created_at", "id"]).execute();
      await db.schema.createIndex("webhook_deliveries_by_endpoint_type").on("webhook_deliveries").columns(["endpoint_id", "event_type", "created_at", "id"]).execute();
      // Due work, per endpoint (a claim takes an endpoint's earliest within its concurrency_limit): only the
      // rows that have an attempt to make.
      await db.schema.createIndex("webhook_deliveries_due").on("webhook_deliveries").columns(["endpoint_id", "due_at", "id"]).where(sql.ref("due_at"), "is not", null).execute();
      // The attempts in flight per endpoint, which a claim counts against its concurrency_limit.
      await db.schema.createIndex("webhook_deliveries_leased").on("webhook_deliveries").columns(["endpoint_id", "lease_expires_at"]).where(sql.ref("lease_owner"), "is not", null).execute();
      // What an event's retention checks: whether a delivery still shows it.
      await db.schema.createIndex("webhook_deliveries_by_event").on("webhook_deliveries").columns(["event_id"]).execute();

      await db.schema
        .createTable("delivery_attempts")
        .addColumn("delivery_id", "text", (c) => c.notNull().references("webhook_deliveries.id").onDelete("cascade"))
        .addColumn("number", "integer", (c) => c.notNull().check(sql`number >= 1`))
        .addColumn("trigger", "text", (c) => c.notNull().check(sql`${sql.ref("trigger")} in ('scheduled', 'manual', 'test')`))
        .addColumn("started_at", "text", (c) => c.notNull())
        .addColumn("status_code", "integer")
        .addColumn("latency_ms", "integer", (c) => c.notNull())
        .addColumn("outcome", "text", (c) => c.notNull().check(sql`outcome in ('succeeded', 'failed')`))
        .addColumn("error", "text")
        .addColumn("response_body", "text")
        .addColumn("truncated", "integer", (c) => c.notNull().check(sql`truncated in (0, 1)`))
        .addPrimaryKeyConstraint("delivery_attempts_pk", ["delivery_id", "number"])
        .execute();
    },
  };
}
