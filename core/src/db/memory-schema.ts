import type { SqliteDatabase } from "../storage/sqlite.js";
import { MIGRATION_TABLE } from "./migrate.js";

/**
 * The schema a `:memory:` database has once migrated, as the statements that make it: what SQLite itself keeps
 * of each table, index and trigger (`sqlite_master.sql`, in creation order), then the migrator's rows of the
 * migrations that ran. A process's first memory database runs the migrations; the next ones load this, as a
 * test database is loaded from a schema file rather than migrated: it is the same schema, taken from the same
 * lp, in a tenth of the time (`startLp()` opens one per test).
 */
let snapshot: string | null = null;

/** Loads the schema taken by {@link rememberMemorySchema} into a new, empty `:memory:` database; false when none was taken yet. */
export function loadMemorySchema(sqlite: SqliteDatabase): boolean {
  if (snapshot === null) return false;
  sqlite.exec(snapshot);
  return true;
}

/** Takes the schema of a `:memory:` database the migrations just brought to this version (once per process). */
export function rememberMemorySchema(sqlite: SqliteDatabase): void {
  if (snapshot !== null) return;
  const objects = sqlite
    .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
    .all() as Array<{ sql: string }>;
  const statements = objects.map((o) => o.sql);
  for (const table of [MIGRATION_TABLE, `${MIGRATION_TABLE}_lock`]) {
    for (const row of sqlite.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>) {
      const columns = Object.keys(row).map((c) => `"${c}"`).join(", ");
      statements.push(`INSERT INTO "${table}" (${columns}) VALUES (${Object.values(row).map(toLiteral).join(", ")})`);
    }
  }
  snapshot = `BEGIN;\n${statements.join(";\n")};\nCOMMIT;`;
}

/** A column value as an SQL literal: the migrator's rows hold text, integers and nulls. */
function toLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return `'${String(value).replaceAll("'", "''")}'`;
}
