import { sql, type DatabaseIntrospector, type Kysely, type SchemaMetadata, type TableMetadata } from "kysely";

/**
 * What Kysely's migrator asks of a PostgreSQL database (which schemas and tables exist), answered for the
 * connection's own schema only (`current_schema()`, the first of its `search_path`). Kysely's own introspector
 * reads every schema of the database, resolving each table's name as it goes: it grows with what else the
 * database holds, and fails when another schema is dropped while it reads (as when several lp databases
 * share one PostgreSQL database, each in its schema).
 */
export function createSchemaIntrospector(db: Kysely<any>): DatabaseIntrospector {
  return {
    async getSchemas(): Promise<SchemaMetadata[]> {
      const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace where nspname = current_schema()`.execute(db);
      return rows;
    },
    async getTables(): Promise<TableMetadata[]> {
      const { rows } = await sql<{ table: string; schema: string; kind: string; column: string; type: string; nullable: string; has_default: boolean; position: number }>`
        select c.table_name as table, c.table_schema as schema, t.table_type as kind, c.column_name as column, c.data_type as type,
               c.is_nullable as nullable, c.column_default is not null as has_default, c.ordinal_position as position
        from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = current_schema()
        order by c.table_name, c.ordinal_position`.execute(db);
      const tables = new Map<string, TableMetadata>();
      for (const row of rows) {
        let table = tables.get(row.table);
        if (!table) tables.set(row.table, (table = { name: row.table, schema: row.schema, isView: row.kind === "VIEW", isForeign: row.kind === "FOREIGN", columns: [] }));
        table.columns.push({ name: row.column, dataType: row.type, isNullable: row.nullable === "YES", hasDefaultValue: row.has_default, isAutoIncrementing: false });
      }
      return [...tables.values()];
    },
  };
}
