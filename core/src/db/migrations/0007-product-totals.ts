import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Migration } from "kysely/migration";
import { columnTypes } from "../column-types.js";
import type { Dialect } from "../database.js";

/**
 * What an account's products not deleted take of its quotas (how many, and their uploads' bytes), one row per
 * account, kept by triggers on `products`: every write of a product, through any path (the API, an import, a
 * format-2 migration, a hand-made `UPDATE`), moves its account's row in the same statement. A create then reads
 * one row under the account's lock instead of counting every product the account has, which grew with it
 * (a POST at 100,000 products scanned them all). The table is derived: a copy of the database never moves it,
 * the triggers rebuild it as the products arrive.
 */
export function productTotalsMigration(dialect: Dialect): Migration {
  const t = columnTypes(dialect);
  const pg = dialect === "postgres";
  return {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable("product_totals")
        .addColumn("account_id", "text", (c) => c.primaryKey().references("accounts.account_id").onDelete("cascade"))
        .addColumn("products", t.bigint, (c) => c.notNull())
        .addColumn("media_bytes", t.bigint, (c) => c.notNull())
        .execute();
      // The products a database has already.
      await sql`INSERT INTO product_totals (account_id, products, media_bytes)
        SELECT account_id, count(*), coalesce(sum(media_bytes), 0) FROM products WHERE deleted_at IS NULL GROUP BY account_id`.execute(db);
      for (const statement of pg ? postgresTriggers : sqliteTriggers) await statement.execute(db);
      // The index the quota's count read (0002) has no reader left, and costs every write of a product.
      await db.schema.dropIndex("products_usage").execute();
    },
  };
}

// A product counts while it is not deleted: its row leaves its account's totals as it was (an update or a
// delete of a counted product), and enters them as it is (an insert or an update of a product not deleted).
// A leaving product's account row exists (it entered first); an entering one's may not yet.

const sqliteTriggers: RawBuilder<unknown>[] = [
  sql`CREATE TRIGGER product_totals_insert AFTER INSERT ON products WHEN NEW.deleted_at IS NULL BEGIN
    INSERT INTO product_totals (account_id, products, media_bytes) VALUES (NEW.account_id, 1, NEW.media_bytes)
      ON CONFLICT (account_id) DO UPDATE SET products = products + 1, media_bytes = media_bytes + excluded.media_bytes;
  END`,
  sql`CREATE TRIGGER product_totals_delete AFTER DELETE ON products WHEN OLD.deleted_at IS NULL BEGIN
    UPDATE product_totals SET products = products - 1, media_bytes = media_bytes - OLD.media_bytes WHERE account_id = OLD.account_id;
  END`,
  sql`CREATE TRIGGER product_totals_update AFTER UPDATE OF account_id, media_bytes, deleted_at ON products BEGIN
    UPDATE product_totals SET products = products - 1, media_bytes = media_bytes - OLD.media_bytes WHERE account_id = OLD.account_id AND OLD.deleted_at IS NULL;
    INSERT INTO product_totals (account_id, products, media_bytes) SELECT NEW.account_id, 1, NEW.media_bytes WHERE NEW.deleted_at IS NULL
      ON CONFLICT (account_id) DO UPDATE SET products = products + 1, media_bytes = media_bytes + excluded.media_bytes;
  END`,
];

// The function names its tables in the schema it was made in (`search_path` as at its creation), so several
// lp databases in schemas of one PostgreSQL database each keep their own.
const postgresTriggers: RawBuilder<unknown>[] = [
  sql`CREATE FUNCTION product_totals_follow() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
  BEGIN
    IF TG_OP <> 'INSERT' THEN
      IF OLD.deleted_at IS NULL THEN
        UPDATE product_totals SET products = products - 1, media_bytes = media_bytes - OLD.media_bytes WHERE account_id = OLD.account_id;
      END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
      IF NEW.deleted_at IS NULL THEN
        INSERT INTO product_totals AS t (account_id, products, media_bytes) VALUES (NEW.account_id, 1, NEW.media_bytes)
          ON CONFLICT (account_id) DO UPDATE SET products = t.products + 1, media_bytes = t.media_bytes + EXCLUDED.media_bytes;
      END IF;
    END IF;
    RETURN NULL;
  END
  $$`,
  sql`CREATE TRIGGER product_totals_follow AFTER INSERT OR DELETE OR UPDATE OF account_id, media_bytes, deleted_at ON products
    FOR EACH ROW EXECUTE FUNCTION product_totals_follow()`,
];
