import { sql, type Kysely } from "kysely";
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
  // On PostgreSQL the schema is the connection's first (`search_path`, `public` by default): the migrator
  // looks for its tables there only, so several lp databases can live in schemas of one database.
  const schema = dialect === "postgres" ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: `${MIGRATION_TABLE}_lock`,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    // Kysely refuses a database that ran a migration it is not given: one a newer lp made.
    const missing = /previously executed migration (\S+) is missing/.exec(error instanceof Error ? error.message : "");
    if (missing) throw new Error(`this database was migrated by a newer lp (migration ${missing[1]} is unknown to this version): upgrade lp`, { cause: error });
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`migrating the database${failed ? ` (${failed})` : ""} failed: ${reason}`, { cause: error });
  }
}
