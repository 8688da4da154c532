import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/** The service's own settings (keys of cursors and builder links, the admin key's hash), and the account plane. */
export function accountsMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("settings")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("accounts")
        .addColumn("account_id", "text", (c) => c.primaryKey())
        .addColumn("environment", "text", (c) => c.notNull().check(sql`environment in ('production', 'test')`))
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("page_quota", t.bigint, (c) => c.notNull())
        .addColumn("product_quota", t.bigint, (c) => c.notNull())
        .addColumn("media_quota_bytes", t.bigint, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();

      // A token is kept by the SHA-256 of its text, never the text.
      await db.schema
        .createTable("tokens")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("scopes", t.json, (c) => c.notNull())
        .addColumn("expires_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("tokens_by_account").on("tokens").columns(["account_id"]).execute();

      await db.schema
        .createTable("applications")
        .addColumn("application_id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("secret_hash", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .execute();

      // The accounts an application acts for, in the order they were given.
      await db.schema
        .createTable("application_accounts")
        .addColumn("application_id", "text", (c) => c.notNull().references("applications.application_id").onDelete("cascade"))
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("position", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("application_accounts_pk", ["application_id", "account_id"])
        .execute();
      await db.schema.createIndex("application_accounts_by_account").on("application_accounts").columns(["account_id"]).execute();
    },
  };
}
