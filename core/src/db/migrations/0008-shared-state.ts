import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { Dialect } from "../database.js";

/**
 * Short-lived state that processes sharing a PostgreSQL database keep together instead of each in its
 * memory: the windows of the checkout rate limit (one row per limit and client address, its count restarting
 * once its window ended) and the dashboard's login tokens and sessions (one row per hash of a token or session
 * cookie, with its expiry). Neither is data of the service: exports, imports and resets leave them out
 * (`table-catalog.ts`). Made on SQLite too, so the schema is one; a process alone on a file keeps these in its
 * memory.
 */
export function sharedStateMigration(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("rate_windows")
        .addColumn("key", "text", (c) => c.primaryKey().notNull())
        .addColumn("count", "integer", (c) => c.notNull())
        .addColumn("started_at", "text", (c) => c.notNull())
        .addColumn("ends_at", "text", (c) => c.notNull())
        .execute();
      // The sweep deletes ended windows by their end.
      await db.schema.createIndex("rate_windows_by_end").on("rate_windows").columns(["ends_at"]).execute();
      await db.schema
        .createTable("dashboard_keys")
        .addColumn("key", "text", (c) => c.primaryKey().notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("dashboard_keys_by_expiry").on("dashboard_keys").columns(["expires_at"]).execute();
    },
  };
}
