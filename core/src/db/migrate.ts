import type { Kysely } from "kysely";
import { Migrator } from "kysely/migration";
import type { Dialect } from "./database.js";
import { migrationsFor } from "./migrations/index.js";

/** The tables in which Kysely's migrator records which migrations ran (and its lock on PostgreSQL). */
export const MIGRATION_TABLE = "lp_migrations";

/**
 * Applies the migrations this lp has and the database lacks, in order, each in its own transaction; on
 * PostgreSQL the migrator holds an advisory lock, so processes starting together migrate once. A database
 * that ran a migration this lp does not know was written by a newer lp: refused, never touched.
 */
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const migrations = migrationsFor(dialect);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: `${MIGRATION_TABLE}_lock`,
  });
  const known = new Set(Object.keys(migrations));
  const unknown = await ranElsewhere(db, known);
  if (unknown.length > 0) {
    throw new Error(`this database was migrated by a newer lp (migration ${unknown[unknown.length - 1]} is unknown to this version): upgrade lp`);
  }
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migrating the database${failed ? ` (${failed})` : ""} failed: ${reason}`, { cause: error });
  }
}

/** Migrations recorded in the database that this lp does not have. */
async function ranElsewhere(db: Kysely<any>, known: Set<string>): Promise<string[]> {
  const tables = await db.introspection.getTables();
  if (!tables.some((t) => t.name === MIGRATION_TABLE)) return [];
  const rows = await db.selectFrom(MIGRATION_TABLE).select("name").orderBy("name").execute();
  return rows.map((r) => String(r.name)).filter((name) => !known.has(name));
}
