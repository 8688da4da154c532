import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/**
 * Idempotency-Key records: one row per key an account used, holding the fingerprint of the request that
 * first came with it and, once it is answered, the response replayed for 24 hours. While the request runs
 * the row is claimed (`claimed_by` until `claim_expires_at`), so a duplicate is told the key is in use and a
 * claim left by a process that died lapses and can be taken over. `changed_at` is written in the
 * transaction of the request's change: a claim that lapsed after it is not taken over (the change is kept,
 * the request must not run again).
 */
export function idempotencyMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("idempotency_keys")
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("fingerprint", "text", (c) => c.notNull())
        .addColumn("response_status", "integer")
        .addColumn("response_headers", t.json)
        .addColumn("response_body", "text")
        .addColumn("claimed_by", "text")
        .addColumn("claim_expires_at", "text")
        .addColumn("changed_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("idempotency_keys_pk", ["account_id", "key"])
        .execute();
      // The hourly sweep deletes by expiry.
      await db.schema.createIndex("idempotency_keys_by_expiry").on("idempotency_keys").columns(["expires_at"]).execute();
    },
  };
}
