import { spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where Debian's `postgresql` keeps its server binaries: `LP_POSTGRES_BIN`, else the newest
 * `/usr/lib/postgresql/<major>/bin` that has `initdb`. Null when PostgreSQL is not installed.
 */
export const postgresBin: string | null = (() => {
  if (process.env.LP_POSTGRES_BIN) return process.env.LP_POSTGRES_BIN;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const majors = readdirSync(root).filter((d) => existsSync(join(root, d, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
  return majors[0] ? join(root, majors[0], "bin") : null;
})();

/** Whether a PostgreSQL server can be started here. */
export const postgresAvailable = postgresBin !== null && existsSync(join(postgresBin, "pg_ctl"));

if (!postgresAvailable && process.env.LP_REQUIRE_POSTGRES) {
  throw new Error("PostgreSQL is required (LP_REQUIRE_POSTGRES) but no server binaries were found: apt-get install postgresql (or set LP_POSTGRES_BIN)");
}

/** Why a PostgreSQL suite is skipped, printed once per suite that skips. */
export function postgresSkipReason(suite: string): string {
  return `[lp] skipping ${suite}: PostgreSQL not found (Debian package "postgresql"; set LP_POSTGRES_BIN to its bin folder)`;
}

/** A PostgreSQL server started for tests in a temporary directory, on a free port of loopback. */
export interface PostgresServer {
  port: number;
  /** Its directory: the cluster in `data/`, the log in `server.log` (what a failed test keeps to look at). */
  dir: string;
  /** The address of database `name` (default `postgres`). */
  url(name?: string): string;
  /** A new empty database, and its address. */
  createDatabase(): Promise<string>;
  /** Stops the server (immediate shutdown, as a crash, when `hard`), keeping its directory. */
  stop(options?: { hard?: boolean }): Promise<void>;
  /** Starts it again on the same port and directory. */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// initdb and the server refuse to run as root: as root they run as the `postgres` user, which owns the directory.
const asRoot = process.getuid?.() === 0;
function command(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ["runuser", ["-u", "postgres", "--", join(postgresBin!, bin), ...args]] : [join(postgresBin!, bin), args];
}

function run(bin: string, args: string[]): void {
  const [cmd, argv] = command(bin, args);
  const result = spawnSync(cmd, argv, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${bin} failed (${result.status}): ${result.stderr || result.stdout}`);
}

/** Runs `pg_ctl` and waits for it (`-w`: until the server accepts connections, or has stopped). */
function pgCtl(args: string[]): Promise<void> {
  const [cmd, argv] = command("pg_ctl", args);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl ${args[0]} failed (${code}): ${stderr}`))));
  });
}

/** Options of {@link startPostgresServer}. */
export interface StartPostgresOptions {
  /**
   * Whether the server syncs to disk (default true: the crash tests count on what was acknowledged being
   * there). Suites that never kill the server turn it off to create their databases faster.
   */
  fsync?: boolean;
}

/**
 * Starts a PostgreSQL server for tests: `initdb -A trust` in a new temporary directory, then `pg_ctl start`
 * on a free port, its socket in the same directory, listening on 127.0.0.1 only.
 */
export async function startPostgresServer(startOptions: StartPostgresOptions = {}): Promise<PostgresServer> {
  if (!postgresAvailable) throw new Error("PostgreSQL is not installed: apt-get install postgresql");
  const dir = mkdtempSync(join(tmpdir(), "lp-pg-"));
  const data = join(dir, "data");
  chmodSync(dir, 0o755);
  if (asRoot) chownSync(dir, userId("postgres"), groupId("postgres"));
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=32MB${startOptions.fsync === false ? " -c fsync=off -c synchronous_commit=off -c full_page_writes=off" : ""}`;
  const start = () => pgCtl(["start", "-D", data, "-w", "-t", "30", "-l", join(dir, "server.log"), "-o", options]);
  await start();
  let next = 0;
  let running = true;
  const url = (name = "postgres") => `postgres://postgres@127.0.0.1:${port}/${name}`;
  const server: PostgresServer = {
    port,
    dir,
    url,
    async createDatabase() {
      const name = `lp_test_${process.pid}_${++next}`;
      const pg = await import("pg");
      const client = new pg.default.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop(options = {}) {
      if (!running) return;
      await pgCtl(["stop", "-D", data, "-w", "-m", options.hard ? "immediate" : "fast"]);
      running = false;
    },
    async restart() {
      if (running) return;
      await start();
      running = true;
    },
    async dispose() {
      await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

function userId(name: string): number {
  return Number(spawnSync("id", ["-u", name], { encoding: "utf8" }).stdout.trim());
}
function groupId(name: string): number {
  return Number(spawnSync("id", ["-g", name], { encoding: "utf8" }).stdout.trim());
}
