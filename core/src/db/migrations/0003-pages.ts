import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/** Job statuses and steps, as the API names them (`@lp/contract`'s job schema). */
const JOB_STATUSES = ["processing", "completed", "failed"];
const JOB_STEPS = ["analyzing_product", "writing_copy", "generating_images", "building_page", "done"];

// `column in ('a', 'b')` for a check constraint (literals: a check cannot take parameters).
const oneOf = (column: string, values: readonly string[]) => sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;

/**
 * Pages and their generation jobs. A job is the row of its background work too: `due_at`, `lease_owner` and
 * `lease_expires_at` are what `db/queue.ts` claims it by. A page names the job that made it, one page per job,
 * so a job taken over after a kill finds the page its first run wrote instead of writing a second.
 */
export function pagesMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  // Slugs compare byte by byte on both engines (PostgreSQL's default collation may not): the slug order of
  // GET /pages is the same everywhere, and the range that finds a slug's numbered variants is exact.
  const slugType = dialect === "postgres" ? sql`text collate "C"` : sql`text`;
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("page_jobs")
        .addColumn("job_id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("status", "text", (c) => c.notNull().check(oneOf("status", JOB_STATUSES)))
        .addColumn("step", "text", (c) => c.notNull().check(oneOf("step", JOB_STEPS)))
        .addColumn("step_detail", "text", (c) => c.notNull())
        // No foreign key: a job keeps naming its page after the page is deleted, as the API shows it.
        .addColumn("page_id", "text")
        .addColumn("request", t.json, (c) => c.notNull())
        .addColumn("warnings", t.json, (c) => c.notNull())
        .addColumn("step_times", t.json, (c) => c.notNull())
        .addColumn("error_code", "text")
        .addColumn("error_message", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("completed_at", "text")
        .addColumn("due_at", "text")
        .addColumn("lease_owner", "text")
        .addColumn("lease_expires_at", "text")
        .execute();
      await db.schema.createIndex("page_jobs_due").on("page_jobs").columns(["due_at", "job_id"]).where(sql.ref("due_at"), "is not", null).execute();
      // The dashboard's timeline of an account's jobs, newest first.
      await db.schema.createIndex("page_jobs_by_created_at").on("page_jobs").columns(["account_id", "created_at", "job_id"]).execute();
      // The page quota counts the jobs still processing.
      await db.schema.createIndex("page_jobs_processing").on("page_jobs").columns(["account_id"]).where(sql.ref("status"), "=", sql.lit("processing")).execute();

      await db.schema
        .createTable("pages")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        // Products are only soft-deleted: a page keeps its product's row.
        .addColumn("product_id", "text", (c) => c.notNull().references("products.id"))
        .addColumn("slug", slugType, (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull().check(oneOf("status", ["draft", "published"])))
        .addColumn("language", "text", (c) => c.notNull())
        .addColumn("hero_image_url", "text")
        .addColumn("deployed_url", "text")
        .addColumn("job_id", "text", (c) => c.notNull().references("page_jobs.job_id"))
        // The lower-cased slug and product title, which GET /pages' `q` searches (lowered once, the same way on both engines).
        .addColumn("search_text", "text", (c) => c.notNull())
        .addColumn("product", t.json, (c) => c.notNull())
        .addColumn("content", t.json, (c) => c.notNull())
        .addColumn("global_theme", t.json, (c) => c.notNull())
        .addColumn("seo_config", t.json, (c) => c.notNull())
        .addColumn("checkout_fields", t.json, (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addUniqueConstraint("pages_slug_unique", ["account_id", "slug"])
        .addUniqueConstraint("pages_job_unique", ["job_id"])
        .execute();
      // One index per sort of GET /pages (the slug's is its unique constraint); the id breaks ties (the cursor).
      for (const column of ["created_at", "updated_at"]) {
        await db.schema.createIndex(`pages_by_${column}`).on("pages").columns(["account_id", column, "id"]).execute();
      }
      // The filters: status and product_id, each in the default order.
      await db.schema.createIndex("pages_by_status").on("pages").columns(["account_id", "status", "created_at", "id"]).execute();
      await db.schema.createIndex("pages_by_product").on("pages").columns(["account_id", "product_id", "created_at", "id"]).execute();
    },
  };
}
