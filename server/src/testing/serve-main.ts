/**
 * A minimal `lp serve` for process-level tests and benchmarks: starts the server with settings from the
 * environment, prints `KEY=value` lines (the URL first), and shuts down cleanly on SIGTERM or SIGINT.
 *
 * Environment: LP_SERVE_STORAGE (memory | sqlite | postgres, default memory), LP_SERVE_DATA_DIR,
 * LP_SERVE_DATABASE_URL (with postgres), LP_SERVE_PORT (default 0),
 * LP_SERVE_HOST (default 127.0.0.1), LP_SERVE_LOG=1 for the access log on stderr, LP_SERVE_RETRY_SCHEDULE
 * (webhook retry delays in ms, comma-separated, e.g. `0,200,500`; default DESIGN §9's schedule),
 * LP_SERVE_MAX_ENDPOINTS (webhook endpoints per application; default 100), LP_SERVE_LEASE_MS (how long a claim
 * of a job, a deployment or a delivery holds unless renewed, in ms; default 30 s: a killed process's work is
 * taken over by another process sharing its PostgreSQL database after it).
 * Run: node --import tsx server/src/testing/serve-main.ts (tests spawn it bundled: spawn-serve.ts)
 */
import { startServer } from "../serve.js";

const wanted = process.env.LP_SERVE_STORAGE ?? "memory";
// A store lp no longer has (redis) is an error here, never a silent run on memory.
if (wanted !== "memory" && wanted !== "sqlite" && wanted !== "postgres") throw new Error(`LP_SERVE_STORAGE must be memory, sqlite or postgres, not ${JSON.stringify(wanted)}`);
const storage: "memory" | "sqlite" | "postgres" = wanted;
const retrySchedule = process.env.LP_SERVE_RETRY_SCHEDULE?.split(",").map((ms) => Number(ms.trim()));
if (retrySchedule?.some((ms) => !Number.isFinite(ms) || ms < 0)) throw new Error(`LP_SERVE_RETRY_SCHEDULE: ${process.env.LP_SERVE_RETRY_SCHEDULE}`);
const leaseMs = process.env.LP_SERVE_LEASE_MS === undefined ? undefined : Number(process.env.LP_SERVE_LEASE_MS);
if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs > 0)) throw new Error(`LP_SERVE_LEASE_MS: ${process.env.LP_SERVE_LEASE_MS}`);
const server = await startServer({
  storage,
  dataDir: process.env.LP_SERVE_DATA_DIR,
  databaseUrl: process.env.LP_SERVE_DATABASE_URL,
  port: Number(process.env.LP_SERVE_PORT ?? "0"),
  host: process.env.LP_SERVE_HOST ?? "127.0.0.1",
  adminKey: process.env.LP_ADMIN_KEY,
  log: process.env.LP_SERVE_LOG === "1" ? undefined : null,
  retrySchedule,
  leaseMs,
  maxEndpoints: process.env.LP_SERVE_MAX_ENDPOINTS ? Number(process.env.LP_SERVE_MAX_ENDPOINTS) : undefined,
});

process.stdout.write(
  [
    `LP_API_URL=${server.url}`,
    `LP_ACCOUNT=${server.credentials.account_id}`,
    `LP_TOKEN=${server.credentials.token}`,
    `LP_APP_ID=${server.credentials.application_id}`,
    `LP_APP_SECRET=${server.credentials.client_secret}`,
    `LP_ADMIN_KEY=${server.adminKey ?? ""}`,
    "",
  ].join("\n"),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
