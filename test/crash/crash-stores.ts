import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgresServer } from "../../core/src/testing/postgres-server.js";
import { scanPostgres, scanSqlite, type ScanResult } from "./store-scan.js";

/** A store the crash loop runs on: what its processes are started with, and how its database is read below them. */
export interface CrashStore {
  /** Its name in the test's title and in the summary. */
  readonly name: string;
  /** How many `lp serve` processes serve it at once. */
  readonly processes: number;
  /** The environment of every process, beside the loop's own (`LP_SERVE_RETRY_SCHEDULE`, `LP_SERVE_PORT`). */
  readonly env: Record<string, string>;
  /** Reads the database on a connection of its own, safe beside running (or killed) processes. */
  scan(): Promise<ScanResult>;
  /** Removes what the run wrote, or, when `keep`, leaves it and answers where it is. */
  dispose(keep: boolean): Promise<string | null>;
}

/** The embedded store: one `lp serve --storage sqlite`, its data dir locked, restarted on the same dir. */
export function createSqliteStore(): CrashStore {
  const dataDir = mkdtempSync(join(tmpdir(), "crash-loop-"));
  return {
    name: "SQLite",
    processes: 1,
    env: { LP_SERVE_STORAGE: "sqlite", LP_SERVE_DATA_DIR: dataDir },
    scan: () => scanSqlite(join(dataDir, "lp.db")),
    async dispose(keep) {
      if (keep) return `data dir ${dataDir}`;
      rmSync(dataDir, { recursive: true, force: true });
      return null;
    },
  };
}

/**
 * How long a claim of background work holds in the PostgreSQL loop (`LP_SERVE_LEASE_MS`; lp's default is 30 s). A
 * killed process's claims lapse only by time, and each cycle's checks wait for its jobs and deployments to be taken
 * over: at 30 s, three cycles would take minutes. Renewals come every third of it, so 3 s leaves a live process two
 * seconds of a stalled event loop before its claim lapses (a lapse the checks accept: the work is then settled as
 * interrupted by whoever takes it).
 */
const POSTGRES_LEASE_MS = 3_000;

/**
 * PostgreSQL: its own server (fsync on: a kill must not lose what was acknowledged), one database, and two
 * `lp serve --storage postgres` processes on it, one of which each cycle kills and restarts while the other serves.
 */
export async function createPostgresStore(): Promise<CrashStore> {
  const server = await startPostgresServer();
  try {
    const url = await server.createDatabase();
    return {
      name: "PostgreSQL",
      processes: 2,
      env: { LP_SERVE_STORAGE: "postgres", LP_SERVE_DATABASE_URL: url, LP_SERVE_LEASE_MS: String(POSTGRES_LEASE_MS) },
      scan: () => scanPostgres(url),
      async dispose(keep) {
        if (keep) {
          await server.stop();
          return `PostgreSQL directory ${server.dir} (the cluster in data/, its log in server.log)`;
        }
        await server.dispose();
        return null;
      },
    };
  } catch (error) {
    await server.dispose();
    throw error;
  }
}
