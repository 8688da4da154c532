import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/**
 * Products and their images, and on PostgreSQL the media blobs. A deleted product keeps its row
 * (`deleted_at`): pages built from it still show it.
 *
 * Text that lists sort or page by is compared byte by byte on both engines: SQLite's BINARY, and on
 * PostgreSQL the column collation "C" whatever the database's default collation is, so a list orders alike
 * on both and a cursor from one order never lands in another. On "C", `lower()` folds A-Z only, as SQLite's.
 */
export function productsMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  const pg = dialect === "postgres";
  const ordered = pg ? sql`text collate "C"` : sql`text`;
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("products")
        .addColumn("id", ordered, (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("title", ordered, (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("price", t.real, (c) => c.notNull())
        .addColumn("original_price", t.real)
        .addColumn("delivery_price", t.real)
        .addColumn("product_type", "text", (c) => c.notNull())
        .addColumn("checkout_fields", t.json)
        // What `q` searches: the title, a line break and the description, lowercased as JavaScript does
        // (neither engine's lower() folds the same letters), written with the title and description.
        .addColumn("search_text", "text", (c) => c.notNull())
        // Bytes of the product's uploaded images, written with its images: the media quota sums one column.
        .addColumn("media_bytes", t.bigint, (c) => c.notNull().defaultTo(0))
        .addColumn("created_at", ordered, (c) => c.notNull())
        .addColumn("updated_at", ordered, (c) => c.notNull())
        .addColumn("deleted_at", "text")
        .execute();
      // One index per sort of GET /products, over the products not deleted; the id breaks ties (the cursor).
      // The title sorts without ASCII case, as lists always have.
      const live = sql`where deleted_at is null`;
      for (const [name, key] of [
        ["created_at", sql`created_at`],
        ["updated_at", sql`updated_at`],
        ["title", sql`lower(title)`],
        ["price", sql`price`],
      ] as const) {
        await sql`create index ${sql.id(`products_by_${name}`)} on products (account_id, ${key}, id) ${live}`.execute(db);
      }
      // The default sort filtered by type, which a walk of products_by_created_at would read half of.
      await sql`create index products_by_type on products (account_id, product_type, created_at, id) ${live}`.execute(db);
      // The quota's count and sum, read from the index alone (SQLite reads a partial index alone only when it
      // holds the columns of the index's own condition too).
      await sql`create index products_usage on products (account_id, media_bytes, deleted_at) ${live}`.execute(db);

      await db.schema
        .createTable("product_images")
        .addColumn("id", ordered, (c) => c.primaryKey())
        .addColumn("product_id", ordered, (c) => c.notNull().references("products.id").onDelete("cascade"))
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("media_type", "text", (c) => c.notNull())
        .addColumn("display_order", "integer", (c) => c.notNull())
        .addColumn("media_path", "text")
        .addColumn("bytes", t.bigint)
        .addColumn("created_at", ordered, (c) => c.notNull())
        .execute();
      // A product's images in the order shown (ties by creation, then id): the first is a list item's preview.
      await db.schema.createIndex("product_images_by_product").on("product_images").columns(["product_id", "display_order", "created_at", "id"]).execute();

      // Media blobs live in the database on PostgreSQL only; on SQLite they are files beside the database.
      if (pg) {
        await db.schema
          .createTable("media")
          .addColumn("path", ordered, (c) => c.primaryKey())
          .addColumn("bytes", t.blob, (c) => c.notNull())
          .addColumn("media_type", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .execute();
      }
    },
  };
}
