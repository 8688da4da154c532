import { resolve } from "node:path";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { formatDuration, parseDuration, parseDurationList } from "../../runtime/durations.js";
import { readCredentialsFile, removeCredentialsFile, writeCredentialsFile, type CredentialsFile } from "../../runtime/credentials-file.js";
import { UsageError } from "../../runtime/errors.js";
import { toChoice, toInt } from "../../runtime/parse.js";
import { VERSION } from "../../runtime/version.js";
import { openUrl } from "../../runtime/open-url.js";
import { seedProducts } from "./fixtures.js";
import { createRunFiles } from "./run-files.js";
import { toRateLimit } from "./rate-limit-flag.js";

/** Options of `lp serve`. */
export interface ServeCommandOptions {
  host: string;
  port: number;
  storage: "sqlite" | "memory" | "postgres";
  /** `--database-url`; `LP_DATABASE_URL` is read when the command runs. */
  databaseUrl?: string;
  dataDir: string;
  publicUrl?: string;
  admin: boolean;
  /** `--clock`: the machine's, or one that moves only when told. */
  clock: "system" | "manual";
  retrySchedule?: number[];
  deployDelayMs?: number;
  generationStepMs?: number;
  publicOnly: boolean;
  maxEndpoints: number;
  /** `--event-retention`: how long events are kept for replay. */
  eventRetentionMs: number;
  /** Undefined: the server's default; null: no limit. */
  checkoutRateLimit?: { count: number; windowMs: number } | null;
  seed?: string | true;
  printEnv: boolean;
  /** `--open`: the dashboard in the default browser once ready. */
  open: boolean;
  quiet: boolean;
  /** Written once ready, removed on stop (`--write-env`, `--pid-file`). */
  envFile?: string;
  pidFile?: string;
  /** How long a shutdown waits for in-flight requests and background work. */
  drainTimeoutMs: number;
  /** `--headers-timeout`, `--max-connections`, `--max-connections-per-address` (null: off); absent: the server's defaults. */
  connections: { headersTimeoutMs?: number; maxConnections?: number; maxPerAddress?: number | null };
}

/** Turns the parsed flags of `lp serve` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ServeCommandOptions {
  if (flags.open && flags.admin === false) throw new UsageError("--open opens the dashboard, which --no-admin turns off.");
  return {
    host: flags.host,
    port: toInt(flags.port, "--port", 0, 65_535)!,
    // `fs` is the embedded store's earlier name; scripts that pass it keep working.
    storage: toStorage(flags.storage),
    databaseUrl: flags.databaseUrl === undefined ? undefined : toDatabaseUrl(flags.databaseUrl, "--database-url"),
    dataDir: flags.dataDir,
    publicUrl: flags.publicUrl,
    admin: flags.admin !== false,
    clock: toChoice(flags.clock ?? "system", "--clock", ["system", "manual"] as const)!,
    retrySchedule: flags.retrySchedule === undefined ? undefined : parseDurationList(flags.retrySchedule, "--retry-schedule"),
    deployDelayMs: flags.deployDelay === undefined ? undefined : parseDuration(flags.deployDelay, "--deploy-delay"),
    generationStepMs: flags.generationDelay === undefined ? undefined : parseDuration(flags.generationDelay, "--generation-delay"),
    publicOnly: flags.public === true,
    maxEndpoints: toInt(flags.maxEndpoints ?? "100", "--max-endpoints", 1, 100_000)!,
    eventRetentionMs: toRetention(flags.eventRetention ?? "7d"),
    checkoutRateLimit: toRateLimit(flags.checkoutRateLimit, "--checkout-rate-limit"),
    seed: flags.seed,
    printEnv: flags.printEnv === true,
    open: flags.open === true,
    quiet: flags.quiet === true,
    envFile: flags.writeEnv,
    pidFile: flags.pidFile,
    drainTimeoutMs: parseDuration(flags.drainTimeout ?? "10s", "--drain-timeout"),
    connections: {
      headersTimeoutMs: flags.headersTimeout === undefined ? undefined : toHeadersTimeout(flags.headersTimeout),
      maxConnections: toInt(flags.maxConnections, "--max-connections", 1, 10_000_000),
      maxPerAddress: flags.maxConnectionsPerAddress === "off" ? null : toInt(flags.maxConnectionsPerAddress, "--max-connections-per-address", 1, 10_000_000),
    },
  };
}

/** `--event-retention`: a duration from a minute to a year; days (`7d`) as well as the usual units. */
function toRetention(text: string): number {
  const days = /^(\d{1,3})d$/.exec(text.trim());
  const ms = days ? Number(days[1]) * 86_400_000 : parseDuration(text, "--event-retention");
  if (ms < 60_000 || ms > 366 * 86_400_000) throw new UsageError(`--event-retention: '${text}' must be from 1m to 366d.`);
  return ms;
}

function toHeadersTimeout(text: string): number {
  const ms = parseDuration(text, "--headers-timeout");
  if (ms < 1000 || ms > 300_000) throw new UsageError(`--headers-timeout: '${text}' must be from 1s to 5m.`);
  return ms;
}

/** What `--storage redis` says: Redis is not a store of lp any more, and how to move off it. */
export const REDIS_GONE =
  "--storage redis is no longer supported: lp keeps its state in SQLite or PostgreSQL. To share one service among processes, run each with --storage postgres --database-url postgres://user@host/db (or LP_DATABASE_URL). To keep the data of a Redis store: with the lp that served it, `lp admin export --output lp-export.json`; then start this lp on its new store and `lp admin import lp-export.json`.";

function toStorage(value: string | undefined): ServeCommandOptions["storage"] {
  if (value === "redis") throw new UsageError(REDIS_GONE);
  return toChoice(value === "fs" ? "sqlite" : value, "--storage", ["sqlite", "memory", "postgres"] as const)!;
}

function toDatabaseUrl(text: string, flag: string): string {
  if (!/^postgres(?:ql)?:\/\/\S+$/.test(text) || !URL.canParse(text)) throw new UsageError(`${flag}: '${redactUrl(text)}' must be a URL like postgres://user@127.0.0.1:5432/lp.`);
  return text;
}

/** A database URL with its password replaced, for messages and the start line. */
export function redactUrl(text: string): string {
  if (!URL.canParse(text)) return text.replace(/:[^:@/]*@/, ":***@");
  const url = new URL(text);
  if (url.password) url.password = "***";
  return url.href;
}

/** The `KEY=value` lines of `--print-env`. */
export function toEnvLines(creds: CredentialsFile): string {
  const lines = [
    `LP_API_URL=${creds.api_url}`,
    `LP_TOKEN=${creds.token}`,
    `LP_ACCOUNT=${creds.account}`,
    `LP_APP_ID=${creds.app_id}`,
    `LP_APP_SECRET=${creds.app_secret}`,
  ];
  if (creds.admin_key) lines.push(`LP_ADMIN_KEY=${creds.admin_key}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Starts the server, writes `<data-dir>/credentials.json`, prints the credentials, optionally seeds,
 * prints the readiness line, then runs until SIGINT/SIGTERM and closes cleanly (exit 0).
 */
export async function run(opts: ServeCommandOptions, ctx: Context): Promise<void> {
  const { io } = ctx;
  const server$ = await import("@lp/server");
  const startServer = (ctx.deps.startServer as typeof server$.startServer | undefined) ?? server$.startServer;
  const dataDir = resolve(io.cwd, opts.dataDir);
  const adminKey = ctx.flags.adminKey ?? io.env.LP_ADMIN_KEY;
  const exposed = opts.admin && !server$.isLoopbackHost(opts.host);
  const exposure = opts.admin ? server$.toAdminExposureProblem(opts.host, adminKey) : null;
  if (exposure) throw new UsageError(exposure);
  const databaseUrl = opts.storage === "postgres" ? (opts.databaseUrl ?? (io.env.LP_DATABASE_URL ? toDatabaseUrl(io.env.LP_DATABASE_URL, "LP_DATABASE_URL") : undefined)) : undefined;
  if (opts.storage === "postgres" && !databaseUrl) {
    throw new UsageError("--storage postgres needs the database to share: --database-url postgres://user@127.0.0.1:5432/lp (or LP_DATABASE_URL).");
  }
  if (opts.storage !== "postgres" && opts.databaseUrl) throw new UsageError("--database-url goes with --storage postgres.");
  if (opts.storage === "postgres" && opts.clock === "manual") {
    throw new UsageError("--clock manual works with --storage memory or sqlite: processes sharing a PostgreSQL database run on the machine's clock.");
  }
  const server = await startServer({
    writtenBy: `lp ${VERSION}`,
    // A start-up fault ends the process within 5 s of its start (DESIGN §12), however long its modules took.
    startDeadline: performance.timeOrigin + 4_500,
    host: opts.host,
    port: opts.port,
    storage: opts.storage,
    databaseUrl,
    dataDir,
    publicUrl: opts.publicUrl,
    admin: opts.admin,
    adminKey,
    clock: opts.clock,
    log: opts.quiet ? null : (line) => io.stderr.write(`${line}\n`),
    retrySchedule: opts.retrySchedule,
    deployDelayMs: opts.deployDelayMs,
    generationStepMs: opts.generationStepMs,
    publicOnly: opts.publicOnly,
    maxEndpoints: opts.maxEndpoints,
    eventRetentionMs: opts.eventRetentionMs,
    checkoutRateLimit: opts.checkoutRateLimit,
    connections: opts.connections,
    env: io.env,
  }).catch((error: unknown) => {
    // The error is printed and the exit code is 1; should a client the failed start opened still hold the
    // event loop, the process ends anyway instead of running on without a port.
    setTimeout(() => io.exit?.(1), 1500).unref();
    throw error;
  });
  // Behind a load balancer the address to hand out is the public one, the same from every process.
  const apiUrl = opts.publicUrl?.replace(/\/+$/, "") ?? server.url;
  const creds: CredentialsFile = {
    api_url: apiUrl,
    account: server.credentials.account_id,
    token: server.credentials.token,
    app_id: server.credentials.application_id,
    app_secret: server.credentials.client_secret,
    admin_key: server.adminKey,
  };
  const stopped = io.onShutdown();
  const runFiles = createRunFiles(opts, io.cwd, process.pid);
  let left: string[] = [];
  try {
    const shared = opts.storage === "postgres" ? await sharedCredentials(dataDir, creds) : null;
    const credsPath = shared?.path ?? (await writeCredentialsFile(dataDir, creds));
    const err = ctx.colors.err;
    io.stderr.write(`${err.bold("lp serve")} listening on ${err.cyan(server.url)}${apiUrl !== server.url ? `, public URL ${err.cyan(apiUrl)}` : ""} (storage: ${opts.storage}${opts.storage === "sqlite" ? `, ${dataDir}` : ""}${opts.clock === "manual" ? ", manual clock" : ""}${databaseUrl ? `, ${redactUrl(databaseUrl)}` : ""})\n`);
    for (const notice of server.notices ?? []) io.stderr.write(`  ${notice}\n`);
    if (exposed) io.stderr.write(`  ${err.bold("warning:")} /_admin (which mints tokens) is reachable from the network on ${opts.host}; keep LP_ADMIN_KEY secret, or pass --no-admin\n`);
    if (opts.printEnv) io.stdout.write(toEnvLines(creds));
    else io.stderr.write(toEnvLines(creds).replace(/^/gm, "  ").trimEnd() + "\n");
    const dashboardUrl = server.dashboardLoginUrl?.();
    if (dashboardUrl) io.stderr.write(`  dashboard: ${err.cyan(dashboardUrl)} (one-time login; \`lp dashboard\` prints another)\n`);
    io.stderr.write(
      shared
        ? `  credentials in ${credsPath} name ${shared.api_url}, another live process of this service; left as they are (--public-url gives every process the same address)\n`
        : `  credentials written to ${credsPath} (lp commands run in ${io.cwd} use them)\n`,
    );
    if (opts.seed !== undefined) {
      const { createClient } = await import("@lp/client");
      const client = createClient({ baseUrl: server.url, token: creds.token, accountId: creds.account });
      const count = await seedProducts(client, opts.seed, io.cwd);
      io.stderr.write(count ? `  seeded ${count} products\n` : "  seed skipped: the dev account already has products\n");
    }
    await runFiles.ready(toEnvLines(creds));
    io.stderr.write(`Ready at ${server.url}${apiUrl !== server.url ? ` (public URL ${apiUrl})` : ""} (Ctrl+C to stop)\n`);
    const login = opts.open ? server.dashboardLoginUrl?.() : undefined;
    if (login) (ctx.deps.openUrl ?? openUrl)(login, (command) => io.stderr.write(`  could not run ${command}; open the dashboard URL above yourself\n`));
    const signal = await stopped;
    io.stderr.write(`${signal}: stopping; finishing requests and background work (up to ${formatDuration(opts.drainTimeoutMs)}, a second signal stops at once)...\n`);
    ({ left } = await server.close({ drainTimeoutMs: opts.drainTimeoutMs }));
    if (left.length) {
      io.stderr.write(`Drain timeout (${formatDuration(opts.drainTimeoutMs)}): left for recovery at the next start: ${left.join(", ")}\n`);
    }
  } finally {
    await server.close();
    await runFiles.remove();
    const current = await readCredentialsFile(dataDir);
    // Memory storage forgets the credentials: remove the file, unless another server has since written its own.
    if (opts.storage === "memory" && current?.api_url === creds.api_url) await removeCredentialsFile(current.path);
  }
  io.stderr.write("Stopped.\n");
  // What was left keeps its sockets and timers: end now rather than when they run out.
  if (left.length) io.exit?.(0);
}

/**
 * On PostgreSQL, processes sharing a data dir hand out the same credentials: a file another process of the same
 * service wrote (same account and token, another address) is left alone while that process answers, so one
 * process, not each in turn, is the one whose address `lp` commands use. Null when this process should write.
 */
async function sharedCredentials(dataDir: string, creds: CredentialsFile): Promise<(CredentialsFile & { path: string }) | null> {
  const current = await readCredentialsFile(dataDir);
  if (!current || current.api_url === creds.api_url || current.token !== creds.token || current.account !== creds.account) return null;
  const answers = await fetch(`${current.api_url}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
  return answers ? current : null;
}
