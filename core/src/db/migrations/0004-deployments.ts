import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/** Deployment statuses, steps and failure codes, as the API names them (`@lp/contract`'s deployment schema). */
const STATUSES = ["deploying", "succeeded", "failed"];
const STEPS = ["rendering", "uploading", "activating"];
const ERROR_CODES = ["render_failed", "worker_terminated", "cancelled"];

// `column in ('a', 'b')` for a check constraint (literals: a check cannot take parameters).
const oneOf = (column: string, values: readonly string[]) => sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;

/**
 * Deployments of pages, the live sites and the checkout posts they receive. A deployment is the row of its
 * background work too (`due_at`, `lease_owner`, `lease_expires_at`, claimed by `db/queue.ts`). A page's
 * deployments, its site and the site's files go with the page; checkout posts stay (they are the account's orders).
 */
export function deploymentsMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  // As `pages.slug`: compared byte by byte on both engines.
  const slugType = dialect === "postgres" ? sql`text collate "C"` : sql`text`;
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("deployments")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("page_id", "text", (c) => c.notNull().references("pages.id").onDelete("cascade"))
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("status", "text", (c) => c.notNull().check(oneOf("status", STATUSES)))
        .addColumn("deploy_step", "text", (c) => c.check(oneOf("deploy_step", STEPS)))
        .addColumn("error_code", "text", (c) => c.check(oneOf("error_code", ERROR_CODES)))
        .addColumn("error_message", "text")
        .addColumn("deployed_url", "text")
        .addColumn("deployed_at", "text")
        // The fault the deployment was asked to simulate (`Lp-Simulate`), or null.
        .addColumn("simulate", "text")
        .addColumn("step_times", t.json, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("due_at", "text")
        .addColumn("lease_owner", "text")
        .addColumn("lease_expires_at", "text")
        .execute();
      // One deployment in flight per page: a second start is refused by this index (the API's 409).
      await db.schema.createIndex("deployments_in_flight").on("deployments").column("page_id").unique().where(sql.ref("status"), "=", sql.lit("deploying")).execute();
      // A page's history, newest first (also what the page's deletion cascades through).
      await db.schema.createIndex("deployments_by_page").on("deployments").columns(["page_id", "created_at", "id"]).execute();
      await db.schema.createIndex("deployments_due").on("deployments").columns(["due_at", "id"]).where(sql.ref("due_at"), "is not", null).execute();

      // What a live address serves: replaced in one write when a deployment activates.
      await db.schema
        .createTable("sites")
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("slug", slugType, (c) => c.notNull())
        .addColumn("page_id", "text", (c) => c.notNull().references("pages.id").onDelete("cascade"))
        .addColumn("deployment_id", "text", (c) => c.notNull().references("deployments.id").onDelete("cascade"))
        .addColumn("activated_at", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("sites_pk", ["account_id", "slug"])
        .execute();
      // PostgreSQL indexes no foreign key by itself: the cascades from a page and a deployment find their sites here.
      await db.schema.createIndex("sites_by_page").on("sites").column("page_id").execute();
      await db.schema.createIndex("sites_by_deployment").on("sites").column("deployment_id").execute();

      // A deployment's rendered files: written once, never changed, so a reader may keep them as long as it likes.
      await db.schema
        .createTable("site_files")
        .addColumn("deployment_id", "text", (c) => c.primaryKey().references("deployments.id").onDelete("cascade"))
        .addColumn("html", "text", (c) => c.notNull())
        .addColumn("page", t.json, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();

      // Checkout posts name the page and deployment they came through, without a foreign key: they outlive both.
      await db.schema
        .createTable("checkouts")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("page_id", "text", (c) => c.notNull())
        .addColumn("deployment_id", "text", (c) => c.notNull())
        .addColumn("values", t.json, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("checkouts_by_created_at").on("checkouts").columns(["account_id", "created_at", "id"]).execute();
    },
  };
}
