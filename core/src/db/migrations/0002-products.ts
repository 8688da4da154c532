import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/** Products and their images. A deleted product keeps its row (`deleted_at`): pages built from it still show it. */
export function productsMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("products")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("account_id", "text", (c) => c.notNull().references("accounts.account_id").onDelete("cascade"))
        .addColumn("title", "text", (c) => c.notNull())
        .addColumn("description", "text")
        .addColumn("price", t.real, (c) => c.notNull())
        .addColumn("original_price", t.real)
        .addColumn("delivery_price", t.real)
        .addColumn("product_type", "text", (c) => c.notNull())
        .addColumn("checkout_fields", t.json)
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addColumn("deleted_at", "text")
        .execute();
      // One index per sort of GET /products, over the products not deleted; the id breaks ties (the cursor).
      for (const column of ["created_at", "updated_at", "title", "price"]) {
        await db.schema.createIndex(`products_by_${column}`).on("products").columns(["account_id", column, "id"]).where(sql.ref("deleted_at"), "is", null).execute();
      }

      await db.schema
        .createTable("product_images")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("product_id", "text", (c) => c.notNull().references("products.id").onDelete("cascade"))
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("media_type", "text")
        .addColumn("display_order", "integer", (c) => c.notNull())
        .addColumn("media_path", "text")
        .addColumn("bytes", t.bigint)
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("product_images_by_product").on("product_images").columns(["product_id", "display_order"]).execute();
    },
  };
}
