import type { Queries, Tx } from "./database.js";
import { columnsOf, compareByKey, TABLE_ORDER, type AnyRow, type CatalogTable, type TableRows } from "./table-catalog.js";

/**
 * Bound parameters of one insert at most: within SQLite's limit (32,766) and PostgreSQL's (65,535), with
 * room, so a table of any width is written in statements of a few hundred rows.
 */
const PARAMETERS_PER_INSERT = 10_000;

// The query layer is typed by table; these helpers move rows of any table, so they go through an untyped view.
type Untyped = { insertInto(table: string): any; deleteFrom(table: string): any; selectFrom(table: string): any };

/**
 * Writes `rows` in `tx`, table by table in {@link TABLE_ORDER} (parents before the rows that name them),
 * in statements of as many rows as the engines bind at once. A row the schema refuses (a foreign key, a
 * check, a duplicate key) throws, and the caller's transaction rolls back.
 */
export async function writeTableRows(tx: Tx, rows: TableRows): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLE_ORDER) {
    const list = rows[table] ?? [];
    counts[table] = list.length;
    if (list.length === 0) continue;
    const columns = columnsOf(table);
    const perInsert = Math.max(1, Math.floor(PARAMETERS_PER_INSERT / columns.length));
    for (let i = 0; i < list.length; i += perInsert) {
      // Every row with every column, in one order: an insert's rows must agree on their columns.
      const chunk = list.slice(i, i + perInsert).map((row) => Object.fromEntries(columns.map((c) => [c, row[c] ?? null])));
      await (tx as unknown as Untyped).insertInto(table).values(chunk).execute();
    }
  }
  return counts;
}

/** Deletes every row of the catalog's tables (`except` kept), children first, in `tx`. */
export async function clearTables(tx: Tx, options: { except?: readonly CatalogTable[] } = {}): Promise<void> {
  const kept = new Set(options.except ?? []);
  for (const table of [...TABLE_ORDER].reverse()) {
    if (!kept.has(table)) await (tx as unknown as Untyped).deleteFrom(table).execute();
  }
}

/** Every row of `table`, every column, in primary-key order (compared as the catalog does, alike on both engines). */
export async function readTableRows(q: Queries, table: CatalogTable): Promise<AnyRow[]> {
  const rows = (await (q as unknown as Untyped).selectFrom(table).select(columnsOf(table)).execute()) as AnyRow[];
  return rows.sort(compareByKey(table));
}
