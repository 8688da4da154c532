import { sql } from "kysely";
import { expect, it } from "vitest";
import { describeDatabases } from "../testing/databases.js";
import { MIGRATION_TABLE } from "./migrate.js";
import { columnsOf, SHORT_LIVED_TABLES, TABLE_ORDER, tableSpec, UNCOPIED_TABLES } from "./table-catalog.js";

describeDatabases("the table catalog", ({ kind, open }) => {
  it("names every table the migrations make, every column with its nullability, and the JSON columns", async () => {
    const database = await open();
    const tables = (await database.db.introspection.getTables()).filter((t) => !t.name.startsWith(MIGRATION_TABLE));
    // The media table (PostgreSQL only) goes through the media blobs; the product totals follow the products;
    // short-lived state is not the service's data.
    expect(tables.map((t) => t.name).filter((name) => !UNCOPIED_TABLES.includes(name)).sort()).toEqual([...TABLE_ORDER].sort());
    expect(tables.map((t) => t.name).filter((name) => (SHORT_LIVED_TABLES as readonly string[]).includes(name)).sort()).toEqual([...SHORT_LIVED_TABLES].sort());
    for (const table of TABLE_ORDER) {
      const found = tables.find((t) => t.name === table)!;
      const kinds = tableSpec(table).columns as Record<string, string>;
      expect(found.columns.map((c) => c.name).sort(), table).toEqual(columnsOf(table).sort());
      for (const column of found.columns) {
        // SQLite lets a text primary key be null unless it says NOT NULL; nothing lp writes is.
        const key = (tableSpec(table).key as readonly string[]).includes(column.name);
        if (!(key && kind !== "postgres")) expect(column.isNullable, `${table}.${column.name}`).toBe(kinds[column.name]!.endsWith("?"));
        if (kind === "postgres") expect(column.dataType === "json", `${table}.${column.name}`).toBe(kinds[column.name]!.startsWith("json"));
      }
    }
  });

  it.runIf(kind === "sqlite")("orders the tables after every table they reference", async () => {
    const database = await open();
    for (const [index, table] of TABLE_ORDER.entries()) {
      const { rows } = await sql<{ table: string }>`select * from pragma_foreign_key_list(${table})`.execute(database.db);
      for (const parent of rows.map((r) => r.table)) expect(TABLE_ORDER.indexOf(parent as never), `${table} references ${parent}`).toBeLessThan(index);
    }
  });
});
