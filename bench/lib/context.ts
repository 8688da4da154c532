import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresAvailable, startPostgresServer, type PostgresServer } from "../../core/src/testing/postgres-server.js";

/** Settings shared by every scenario. */
export interface BenchContext {
  quick: boolean;
  /** Seconds per measured load run. */
  seconds: number;
  /** The "large" collection size. */
  large: number;
  /** The "small" collection size. */
  small: number;
  log(message: string): void;
  /** A fresh temporary folder, removed by {@link BenchContext.cleanup}. */
  tempDir(label: string): string;
  /**
   * A new empty PostgreSQL database on the run's server (started at the first call, in a temp dir, as the tests
   * start theirs), or null where Debian's `postgresql` is not installed: the PostgreSQL rows are then left out.
   */
  postgresDatabase(): Promise<string | null>;
  /** The PostgreSQL server's postmaster pid (its backends are its children), once started. */
  postgresPid(): number | null;
  cleanup(): Promise<void>;
}

/** Builds the context from the command line flags. */
export function createContext(argv: string[]): BenchContext {
  const quick = argv.includes("--quick");
  const dirs: string[] = [];
  let postgres: Promise<PostgresServer> | null = null;
  let postmaster: number | null = null;
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  return {
    quick,
    seconds: quick ? 2 : 5,
    // --quick keeps every scenario but seeds 20k records instead of 100k (seeding dominates the run).
    large: quick ? 20_000 : 100_000,
    small: 1_000,
    log,
    tempDir(label) {
      const dir = mkdtempSync(join(tmpdir(), `lp-bench-${label}-`));
      dirs.push(dir);
      return dir;
    },
    async postgresDatabase() {
      if (!postgresAvailable) {
        log('PostgreSQL not found (Debian package "postgresql"): its rows are left out');
        return null;
      }
      // fsync stays on: the figures are those of a durable server, as a user's is.
      postgres ??= startPostgresServer().then(async (server) => {
        const pg = await import("pg");
        const client = new pg.default.Client({ connectionString: server.url() });
        await client.connect();
        const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        // The backend's parent, read while the backend lives.
        postmaster = Number(readFileSync(`/proc/${rows[0].pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
        await client.end();
        return server;
      });
      return (await postgres).createDatabase();
    },
    postgresPid: () => postmaster,
    async cleanup() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
      if (postgres) await (await postgres).dispose();
    },
  };
}
