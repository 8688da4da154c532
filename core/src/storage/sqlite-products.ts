import { inTransaction, prepareArrays, type ArrayStatement, type SqliteDatabase, type SqliteValue } from "./sqlite.js";

/**
 * What SQLite keeps for the products lists, so they read the database's own indexes instead of an index in
 * memory: a partial index per sort a products list offers (over the collections `acct:<a>:products`), and
 * `product_totals`, each account's count of live products and the bytes of their uploaded images, kept by
 * triggers in the transaction of every write (the quota check reads one row). Every expression reads the
 * record's JSON only when it is valid, so a damaged record is stored and reported, never refused.
 */
const PRODUCTS = "parent GLOB 'acct:*:products'";
const field = (row: string, path: string) => `CASE WHEN json_valid(${row}) THEN json_extract(${row}, '${path}') END`;

/** The sort fields of a products list and the expression each is indexed by. `title` folds ASCII case. */
export const PRODUCT_ORDERS = {
  created_at: "created_at",
  updated_at: field("value", "$.updated_at"),
  title: `lower(${field("value", "$.title")})`,
  price: field("value", "$.price"),
} as const;

export type ProductOrder = keyof typeof PRODUCT_ORDERS;

/** 1 for a product that lists show (JSON, not soft-deleted), else 0. */
const live = (row: string) => `(CASE WHEN json_valid(${row}) THEN json_extract(${row}, '$.deleted_at') IS NULL ELSE 0 END)`;
const bytes = (row: string) =>
  `(CASE WHEN ${live(row)} THEN (SELECT coalesce(sum(json_extract(i.value, '$.bytes')), 0) FROM json_each(${row}, '$.images') i) ELSE 0 END)`;

/** The indexes, the totals table and its triggers (a parent never changes for a key, so an update is one row). */
export const PRODUCT_SCHEMA = `
CREATE INDEX IF NOT EXISTS products_by_updated ON records (parent, ${PRODUCT_ORDERS.updated_at}, key) WHERE ${PRODUCTS};
CREATE INDEX IF NOT EXISTS products_by_title ON records (parent, ${PRODUCT_ORDERS.title}, key) WHERE ${PRODUCTS};
CREATE INDEX IF NOT EXISTS products_by_price ON records (parent, ${PRODUCT_ORDERS.price}, key) WHERE ${PRODUCTS};
CREATE TABLE IF NOT EXISTS product_totals (
  parent TEXT NOT NULL PRIMARY KEY,
  products INTEGER NOT NULL,
  media_bytes INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS product_totals_insert AFTER INSERT ON records WHEN new.${PRODUCTS} BEGIN
  INSERT INTO product_totals (parent, products, media_bytes) VALUES (new.parent, ${live("new.value")}, ${bytes("new.value")})
    ON CONFLICT (parent) DO UPDATE SET products = products + excluded.products, media_bytes = media_bytes + excluded.media_bytes;
END;
CREATE TRIGGER IF NOT EXISTS product_totals_update AFTER UPDATE OF value ON records WHEN new.${PRODUCTS} BEGIN
  UPDATE product_totals SET products = products - ${live("old.value")} + ${live("new.value")},
    media_bytes = media_bytes - ${bytes("old.value")} + ${bytes("new.value")} WHERE parent = new.parent;
END;
CREATE TRIGGER IF NOT EXISTS product_totals_delete AFTER DELETE ON records WHEN old.${PRODUCTS} BEGIN
  UPDATE product_totals SET products = products - ${live("old.value")}, media_bytes = media_bytes - ${bytes("old.value")} WHERE parent = old.parent;
END;
`;

/**
 * Creates what {@link PRODUCT_SCHEMA} describes in `db`, in one transaction; a database made before it had
 * them gets its totals counted from the records it holds.
 */
export function applyProductSchema(db: SqliteDatabase): void {
  inTransaction(db, () => {
    const counted = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'product_totals'").get() !== undefined;
    db.exec(PRODUCT_SCHEMA);
    if (counted) return;
    db.exec(
      `INSERT INTO product_totals (parent, products, media_bytes) SELECT r.parent, sum(${live("r.value")}), sum(${bytes("r.value")}) FROM records r WHERE r.${PRODUCTS} GROUP BY r.parent`,
    );
  });
}

/** A row of a products list: the record's key, its JSON text (null when the list's filter rules it out), and its sort value. */
export type ProductRow = [key: string, text: string | null, sortValue: string | number | null];

/**
 * What a products list filters by, as SQLite can rule rows out without reading them into JavaScript: every
 * row it keeps may match, and the caller decides exactly. `text` is found in the title, a line break and the
 * description with A-Z, `İ` and `K` folded (the only characters whose JavaScript lowercase holds a-z), so a
 * needle of a-z and other ASCII is never missed; `createdFrom` and `createdTo` are exclusive bounds.
 */
export interface ProductFilter {
  type?: string;
  text?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** Reads of the products lists and totals, from the main thread's connection. */
export interface ProductTables {
  /**
   * The next `limit` records of the collection `parent` in `order` (ties by key), strictly after `after` (a
   * sort value and key) when given, each with its text (null when `filter` rules it out). Soft-deleted
   * products are among them: the caller skips them. A record with no sort value (not JSON) is not.
   */
  page(
    parent: string,
    order: ProductOrder,
    descending: boolean,
    after: readonly [string | number | null, string] | null,
    limit: number,
    filter?: ProductFilter,
  ): ProductRow[];
  /**
   * The collection's live products and their upload bytes, the stored text of `claim` (null when absent), and
   * for each pending write (a key and the text it had when its share was taken, null for none) whether the
   * database shows it (the key's text is no longer that one): all read by one statement, so they describe
   * the database at one moment.
   */
  usage(parent: string, claim: string, pending: readonly (readonly [key: string, before: string | null])[]): { products: number; bytes: number; claimed: string | null; landed: boolean[] };
}

type Params = [Record<string, SqliteValue>];

/** The {@link ProductTables} of a connection whose database has {@link PRODUCT_SCHEMA}. */
export function productTables(db: SqliteDatabase): ProductTables {
  const statements = new Map<string, ArrayStatement<Params, ProductRow>>();
  const statement = (order: ProductOrder, descending: boolean, after: boolean, filtered: boolean) => {
    const name = `${order} ${descending} ${after} ${filtered}`;
    let made = statements.get(name);
    if (!made) {
      const expr = PRODUCT_ORDERS[order];
      const [way, beyond] = descending ? ["DESC", "<"] : ["ASC", ">"];
      // The bound on the value alone lets the index seek to the cursor; the row value breaks ties by key.
      const from = after ? `AND ${expr} ${beyond}= @value AND (${expr}, key) ${beyond} (@value, @key)` : "";
      // created_at is read from the JSON for each row it is selected for: only a filter needs it beside the order.
      const rows = `SELECT key, value, ${filtered ? "created_at, " : ""}${expr} AS sorted FROM records WHERE parent = @parent AND ${PRODUCTS} AND ${expr} IS NOT NULL ${from} ORDER BY ${expr} ${way}, key ${way} LIMIT @limit`;
      // Rows in the window have a sort value, so their JSON is valid; the filter runs in SQLite on each.
      const text = `lower(replace(replace(coalesce(json_extract(value, '$.title'), '') || char(10) || coalesce(json_extract(value, '$.description'), ''), 'İ', 'i'), 'K', 'k'))`;
      const keep = `(@type IS NULL OR json_extract(value, '$.product_type') = @type) AND (@text IS NULL OR instr(${text}, @text) > 0)
        AND (@createdFrom IS NULL OR created_at > @createdFrom) AND (@createdTo IS NULL OR created_at < @createdTo)`;
      // Filtered, a row ruled out comes back without its text: the next call goes on from the last one.
      const sql = `SELECT key, ${filtered ? `CASE WHEN ${keep} THEN value END` : "value"}, sorted FROM (${rows})`;
      made = prepareArrays<Params, ProductRow>(db, sql);
      statements.set(name, made);
    }
    return made;
  };
  // One statement, so one read of the database: the totals, the claimed product's text, and which of the
  // pending writes it shows (a create's key absent so far costs one probe of the key index).
  const totals = "FROM (SELECT 1) LEFT JOIN product_totals t ON t.parent = @parent";
  const read = prepareArrays<Params, [number | null, number | null, string | null, string]>(
    db,
    `SELECT t.products, t.media_bytes, (SELECT value FROM records WHERE key = @claim),
         (SELECT json_group_array(j.key) FROM json_each(@pending) j LEFT JOIN records r ON r.key = j.value ->> 0 WHERE r.value IS NOT j.value ->> 1)
       ${totals}`,
  );
  const readAlone = prepareArrays<Params, [number | null, number | null, string | null]>(db, `SELECT t.products, t.media_bytes, (SELECT value FROM records WHERE key = @claim) ${totals}`);
  return {
    page: (parent, order, descending, after, limit, filter) => {
      const params: Record<string, SqliteValue> = after ? { parent, limit, value: after[0], key: after[1] } : { parent, limit };
      if (filter) Object.assign(params, { type: filter.type ?? null, text: filter.text ?? null, createdFrom: filter.createdFrom ?? null, createdTo: filter.createdTo ?? null });
      return statement(order, descending, after !== null, filter !== undefined).all(params);
    },
    usage: (parent, claim, pending) => {
      if (pending.length === 0) {
        const [products, bytes, claimed] = readAlone.get({ parent, claim })!;
        return { products: products ?? 0, bytes: bytes ?? 0, claimed, landed: [] };
      }
      const [products, bytes, claimed, shown] = read.get({ parent, claim, pending: JSON.stringify(pending) })!;
      const landed = new Array<boolean>(pending.length).fill(false);
      for (const i of JSON.parse(shown) as number[]) landed[i] = true;
      return { products: products ?? 0, bytes: bytes ?? 0, claimed, landed };
    },
  };
}
