import { dirname } from "node:path";
import { sql, type CompiledQuery } from "kysely";
import { toTimestamp, type Clock } from "../deps.js";
import { createStorageHealth, type StorageHealth } from "../storage/storage-faults.js";
import type { Database } from "./database.js";
import { toDatabaseFault } from "./faults.js";
import { changedRows, hookStatements } from "./statement-hooks.js";

/** Where a database is, as fault lines and `lp doctor` name it. */
export interface DatabasePlace {
  /** What log lines name: the SQLite file's folder (the data dir), `memory storage`, or the PostgreSQL server and database. */
  where: string;
  /** The SQLite file's folder, whose disk answers what an SQLite error does not say; absent in memory and on PostgreSQL. */
  dir?: string;
  /** The SQLite file; absent in memory and on PostgreSQL. */
  file?: string;
}

/** Where `database` is, asked of the engine (the file SQLite has open; PostgreSQL's address and database). */
export async function toDatabasePlace(database: Database): Promise<DatabasePlace> {
  if (database.dialect === "sqlite") {
    const { rows } = await sql<{ name: string; file: string }>`select name, file from pragma_database_list`.execute(database.db);
    const file = rows.find((row) => row.name === "main")?.file ?? "";
    return file ? { where: dirname(file), dir: dirname(file), file } : { where: "memory storage" };
  }
  const { rows } = await sql<{ name: string; host: string | null; port: number | null }>`select current_database() as name, host(inet_server_addr()) as host, inet_server_port() as port`.execute(database.db);
  const row = rows[0]!;
  return { where: row.host ? `postgres://${row.host}:${row.port}/${row.name}` : `PostgreSQL database ${row.name}` };
}

/** Options of {@link guardDatabase}. */
export interface GuardDatabaseOptions {
  health: StorageHealth;
  /** The SQLite file's folder ({@link DatabasePlace.dir}): an SQLite error that can come from the disk is named by asking it. */
  dir?: string;
}

/**
 * Makes every error of `database` that is a storage fault (a full disk, a read-only or forbidden file, the
 * PostgreSQL server out of reach: `toDatabaseFault`) a {@link StorageFaultError}, answered 507 or 503 with
 * `details.reason` and `Retry-After` and never logged with a stack, whoever sent the statement: a request's
 * transaction, a query outside one, background work. `health` counts each refused statement and ends the
 * fault at the first committed change (or, for a database out of reach, the first statement it answers).
 * Returns the guard's removal.
 */
export function guardDatabase(database: Database, options: GuardDatabaseOptions): () => void {
  const { health } = options;
  return hookStatements(database, (statement, run) =>
    run().then(
      (result) => {
        const wrote = statement.kind === "commit" ? statement.wrote : statement.kind === "write" && !statement.inTransaction && changedRows(statement.query, result);
        if (wrote || health.state()?.reason === "database_unavailable") health.succeeded();
        return result;
      },
      (error: unknown) => {
        const fault = toDatabaseFault(error, { dir: options.dir });
        if (!fault) throw error;
        // The probe's refusal is no client's; a rollback's belongs to the statement that failed before it.
        if (statement.kind !== "rollback" && !PROBES.has(statement.query)) health.refused(fault);
        throw fault;
      },
    ),
  );
}

/** The probes' statements, which a fault does not count. */
const PROBES = new WeakSet<CompiledQuery>();

/** The settings row the probe writes (settings are never exported, and nothing reads this one). */
export const PROBE_SETTING = "storage_probe";

/**
 * One small write that succeeds only when the database takes writes: an upsert of the settings row
 * {@link PROBE_SETTING} with the time. Not counted as a refused write when it fails.
 */
export async function probeWrite(database: Database, clock: Clock): Promise<void> {
  const at = toTimestamp(clock.now());
  const query = database.db
    .insertInto("settings")
    .values({ name: PROBE_SETTING, value: at, created_at: at })
    .onConflict((oc) => oc.column("name").doUpdateSet({ value: at }))
    .compile();
  PROBES.add(query);
  await database.db.executeQuery(query);
}

/** Options of {@link watchDatabase}. */
export interface WatchDatabaseOptions {
  clock: Clock;
  log?: (line: string) => void;
  /** Starts a repeating timer (the minute's count, the probe); injected by tests. */
  every?: (ms: number, run: () => void) => () => void;
}

/**
 * The storage health of `database`, fed by {@link guardDatabase}: named by where the database is, with
 * {@link probeWrite} every 5 seconds while a fault lasts, so it ends by itself once there is room. Returns the
 * health, the place, and the guard's removal.
 */
export async function watchDatabase(database: Database, options: WatchDatabaseOptions): Promise<{ health: StorageHealth; place: DatabasePlace; unguard: () => void }> {
  const place = await toDatabasePlace(database);
  const health = createStorageHealth({
    where: place.where,
    log: options.log,
    now: () => options.clock.now(),
    every: options.every,
    probe: () => probeWrite(database, options.clock),
  });
  const unguard = guardDatabase(database, { health, dir: place.dir });
  return { health, place, unguard };
}
