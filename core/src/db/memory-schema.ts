import { openSqlite, type SqliteDatabase } from "../storage/sqlite.js";
import { MIGRATION_TABLE } from "./migrate.js";

/**
 * The schema a `:memory:` database has once migrated, as the statements that make it: what SQLite itself keeps
 * of each table, index and trigger (`sqlite_master.sql`, in creation order), then the migrator's rows of the
 * migrations that ran. A process's first memory database runs the migrations; the next ones load this, as a
 * test database is loaded from a schema file rather than migrated: it is the same schema, taken from the same
 * lp, in a tenth of the time (`startLp()` opens one per test).
 */
let snapshot: string | null = null;

/**
 * The same schema as the pages of a database that ran {@link snapshot} and nothing else (`serialize()`), made
 * once per process where node:sqlite has `serialize()` and `deserialize()` (Node 24 of today; where it has not, as
 * on Node 22.13, each database runs the statements): copying the pages takes a twentieth of the time SQLite takes
 * to run the statements. A database loaded so is
 * SQLite's in-memory file (`memdb`), which holds at most 1 GiB of rows (media are stored beside it, not in it).
 */
let image: Uint8Array | null = null;

/** node:sqlite's `deserialize()`, where this Node has it. */
type Deserializing = SqliteDatabase & { deserialize?(data: Uint8Array): void; serialize?(): Uint8Array };

/**
 * Loads the schema taken by {@link rememberMemorySchema} into a new, empty `:memory:` database just opened, before
 * its connection's pragmas are set (a loaded image starts with the engine's defaults); false when none was taken yet.
 */
export function loadMemorySchema(sqlite: SqliteDatabase): boolean {
  if (snapshot === null) return false;
  const target = sqlite as Deserializing;
  if (image && typeof target.deserialize === "function") target.deserialize(image);
  else sqlite.exec(snapshot);
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
  image = toImage(snapshot);
}

/** The pages of a scratch `:memory:` database that ran `statements`; null where node:sqlite cannot load them back. */
function toImage(statements: string): Uint8Array | null {
  const scratch = openSqlite(":memory:") as Deserializing;
  try {
    if (typeof scratch.serialize !== "function" || typeof scratch.deserialize !== "function") return null;
    scratch.exec(statements);
    return scratch.serialize();
  } finally {
    scratch.close();
  }
}

/** A column value as an SQL literal: the migrator's rows hold text, integers and nulls. */
function toLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return `'${String(value).replaceAll("'", "''")}'`;
}
