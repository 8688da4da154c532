import { createServer as createNetServer } from "node:net";
import { join, resolve } from "node:path";
import {
  createCore,
  openDatabase,
  openDataDir,
  refuseNewerDataDir,
  DATABASE_FILE,
  createMediaBlobs,
  toMediaBlobsPlace,
  systemClock,
  type Database,
  type DatabaseTarget,
  createManualTime,
  createOpenAIGenerator,
  lockDataDir,
  checkPostgresAtStart,
  preflightTimeoutMs,
  ensureAdminKey,
  ensureSharedAdminKey,
  redactDatabaseUrl,
  toAdminKeyFingerprint,
  trimEndChars,
  ensureDevCredentials,
  secureDataDir,
  type Clock,
  type Core,
  type DevCredentials,
  type DrainReport,
  type Generator,
} from "@lp/core";
import { toNodeHandler } from "h3/node";
import { createApp } from "./app.js";
import { assertAdminExposure } from "./exposure.js";
import { defaultConnectionLimits, type ConnectionLimits } from "./http/connection-limits.js";
import { listenOn, preloadListhen } from "./http/listen.js";
import { toSafeNodeHandler } from "./http/node-handler.js";
import { PUBLIC_CHECKOUT_RATE_LIMIT, type RateLimit } from "./http/rate-limit.js";
import { createDatabaseKeys } from "./dashboard/database-keys.js";
import { createDashboardHub, toChangeAnnouncer } from "./dashboard/hub.js";
import type { RequestLog } from "./journal/request-log.js";

/**
 * Where `lp serve` keeps its state: the embedded store (one SQLite database in the data dir), SQLite in
 * memory, or a PostgreSQL database that any number of processes share as one service (DESIGN §12).
 */
export type ServeStorage = "sqlite" | "memory" | "postgres";

/** Options of {@link startServer} (the flags of `lp serve`). */
export interface ServeOptions {
  /** Names this lp in the store's format marker (`lp 1.2.3`). */
  writtenBy?: string;
  host?: string;
  port?: number;
  storage?: ServeStorage;
  /** With `storage: "postgres"`: the database every process of the service shares (`postgres://user@host:5432/lp`). */
  databaseUrl?: string;
  /** The embedded store (sqlite): where its database lives. PostgreSQL: unused by the server (the CLI keeps credentials.json there). */
  dataDir?: string;
  publicUrl?: string;
  admin?: boolean;
  adminKey?: string;
  /** Where the store's own lines go (a migration, storage faults, unreadable records); default stderr. */
  storageLog?: (line: string) => void;
  /** Access-log sink, called with one or more lines per batch; null for none. Default: stderr. */
  log?: ((lines: string) => void) | null;
  /** With `clock: "manual"`: the time it starts at; default now. */
  clockStart?: string;
  /** Webhook retry schedule in milliseconds (kept for the delivery engine). */
  retrySchedule?: number[];
  /**
   * How long a claim of background work (a job, a deployment, a webhook delivery) holds unless renewed;
   * default 30 s (DESIGN §12). Not a flag of `lp serve`: for tests that kill one of the processes sharing a
   * PostgreSQL database and need its work taken over in seconds (`LP_SERVE_LEASE_MS` of `testing/serve-main.ts`).
   */
  leaseMs?: number;
  /**
   * When a start-up fault must have ended the start by (as `Date.now()` counts): the PostgreSQL check waits for
   * the server only until then (at least a second; 2.5 s without it). `lp serve` sets it 4.5 s after its
   * process started, so it ends within 5 s even when loading its modules was slow.
   */
  startDeadline?: number;
  /** Spread every deployment over about this long (three steps), so polling loops can be exercised. */
  deployDelayMs?: number;
  /** Pause per generation step, likewise. */
  generationStepMs?: number;
  /** Refuse webhook receivers on private, loopback and link-local addresses. */
  publicOnly?: boolean;
  /** How long emitted events are kept for replay (`--event-retention`), by the server's clock; default 7 days. */
  eventRetentionMs?: number;
  /** Most webhook endpoints per application (default 100). */
  maxEndpoints?: number;
  /** Checkout posts per client address; null for none. Default: 30 a minute with `publicOnly`, else none. */
  checkoutRateLimit?: RateLimit | null;
  /**
   * Bounds on connections; each absent field takes its default: a 10 s head timeout checked every second,
   * a global cap below the descriptor limit, and with `publicOnly` a per-address cap (null: none).
   */
  connections?: Partial<ConnectionLimits>;
  /**
   * The clock the core stamps and schedules by; default (`system`) the system's. A server opened on data
   * written at a known moment (the committed data dirs of `test/formats`) takes a clock that starts there.
   * `manual` (`lp serve --clock manual`): a clock that moves only through `POST /_admin/clock`, starting at
   * the time of the start (or `clockStart`); everything stamped or scheduled follows it. Memory and SQLite
   * storage only.
   */
  clock?: Clock | "system" | "manual";
  /** Where `LP_AI_BASE_URL`, `LP_AI_API_KEY`, `LP_AI_MODEL` and `LP_AI_MAX_RESPONSE_BYTES` are read; default process.env. */
  env?: Record<string, string | undefined>;
}

/** The page generator the environment asks for: an OpenAI-compatible endpoint, or the offline template. */
function generatorFromEnv(env: Record<string, string | undefined>): Generator | undefined {
  if (!env.LP_AI_BASE_URL) return undefined;
  return createOpenAIGenerator({
    baseUrl: trimEndChars(env.LP_AI_BASE_URL, "/"),
    apiKey: env.LP_AI_API_KEY ?? "",
    model: env.LP_AI_MODEL ?? "gpt-4o-mini",
    maxResponseBytes: aiResponseCap(env.LP_AI_MAX_RESPONSE_BYTES),
    fetch: globalThis.fetch,
  });
}

/** `LP_AI_MAX_RESPONSE_BYTES`: a positive whole number of bytes, or unset for the default. */
function aiResponseCap(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  if (!/^\d{1,12}$/.test(value) || Number(value) < 1) throw new Error(`LP_AI_MAX_RESPONSE_BYTES must be a positive number of bytes, not ${JSON.stringify(value)}`);
  return Number(value);
}

/** A started server. */
export interface RunningServer {
  url: string;
  adminKey: string | null;
  credentials: DevCredentials;
  core: Core;
  /** The request journal (`/_admin/requests`); null when the admin API is off. */
  journal: RequestLog | null;
  /** A fresh one-time login URL of the dashboard at `/_dashboard`; null when the admin API is off. */
  dashboardLoginUrl: (() => string) | null;
  /** Things the operator should hear about at start (a data dir whose permissions were tightened). */
  notices: string[];
  /**
   * Stops accepting, lets in-flight requests and background work finish (within `drainTimeoutMs`, none by
   * default), and closes the stores. Resolves with what was still running when the time was up.
   */
  close(options?: CloseOptions): Promise<DrainReport>;
}

/** Options of {@link RunningServer.close}. */
export interface CloseOptions {
  /** How long in-flight requests and background work may take to finish; unbounded when absent. */
  drainTimeoutMs?: number;
}

/** Starts the whole API on a port: what `lp serve` runs. */
export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  if (options.admin !== false) assertAdminExposure(host, options.adminKey);
  const kind = options.storage ?? "sqlite";
  // Callers from JavaScript (and old scripts' options) may still name a store lp no longer has.
  if (!["sqlite", "memory", "postgres"].includes(kind)) throw new Error(`Storage '${String(kind)}' is not one lp has: sqlite, memory or postgres (Redis is no longer a store of lp; see docs/scale-out.md).`);
  const url = kind === "postgres" ? options.databaseUrl : undefined;
  if (kind === "postgres" && !url) throw new Error("PostgreSQL storage needs a URL: --database-url postgres://user@127.0.0.1:5432/lp (or LP_DATABASE_URL).");
  if (kind === "postgres" && options.clock === "manual") {
    throw new Error("--clock manual works with --storage memory or sqlite: processes sharing a PostgreSQL database run on the machine's clock.");
  }
  if (options.clockStart !== undefined && Number.isNaN(Date.parse(options.clockStart))) throw new Error(`The manual clock's start '${options.clockStart}' is not a timestamp.`);
  // A database that cannot serve (down, a refused user, no such database) ends the start at once, before a
  // pool opens connections that would retry; and never with another database in its place.
  if (url) await checkPostgresAtStart(url, preflightTimeoutMs(options.startDeadline));
  // Only the embedded store keeps the state in the data dir, so only it locks it; a PostgreSQL database is shared on purpose (DESIGN §12).
  const dataDir = kind === "sqlite" ? resolve(options.dataDir ?? ".lp") : undefined;
  // A newer lp's data dir is refused before this one writes anything there (its lock included).
  if (dataDir) refuseNewerDataDir(dataDir, options.writtenBy ?? "lp");
  const notice = dataDir ? secureDataDir(dataDir) : null;
  const unlock = dataDir ? lockDataDir(dataDir) : () => {};
  let database: Database;
  const target: DatabaseTarget = url ? { kind: "postgres", url } : dataDir ? { kind: "sqlite", file: join(dataDir, DATABASE_FILE) } : { kind: "memory" };
  try {
    // The data dir's lp.db in format 3, a dir of format 1 or 2 migrated first; a newer one refused, untouched.
    database = dataDir
      ? await openDataDir(dataDir, { log: options.storageLog ?? ((line) => console.error(line)), writtenBy: options.writtenBy ?? "lp", clock: typeof options.clock === "object" ? options.clock : undefined })
      : await openDatabase(target);
  } catch (error) {
    unlock();
    // On PostgreSQL the check above passed, so this is the schema's turn (a newer lp's database): say which database.
    throw url ? new Error(`PostgreSQL at ${redactDatabaseUrl(url)}: ${(error as Error).message}`, { cause: error }) : error;
  }
  let media: MediaBlobs | undefined;
  try {
    // The media bytes that go with the database: files in the data dir's media/ folder, memory beside
    // :memory:, and on PostgreSQL its media table, which every process reads.
    media = createMediaBlobs(toMediaBlobsPlace(target, database, { clock: systemClock }));
    const booted = await boot(options, host, database, media, unlock, url !== undefined);
    return { ...booted, notices: [...(notice ? [notice] : []), ...booted.notices] };
  } catch (error) {
    await database.close().catch(() => {});
    await media?.dispose().catch(() => {});
    unlock();
    throw error;
  }
}

/** The media blobs of a server's database. */
type MediaBlobs = ReturnType<typeof createMediaBlobs>;

async function boot(options: ServeOptions, host: string, database: Database, media: MediaBlobs, unlock: () => void, shared: boolean): Promise<RunningServer> {
  // The listener's module loads while the core starts; listenOn awaits the same import.
  void preloadListhen().catch(() => {});
  const wanted = options.port ?? 4010;
  // A script that expects this port must hear that it is taken, before the core starts.
  if (wanted !== 0 && !(await isPortFree(wanted, host))) {
    throw new Error(`Port ${wanted} on ${host} is already in use; stop what uses it or pass --port 0 for a free port.`);
  }
  // The port is chosen before the core starts: recovery, which runs first, writes records that name the public URL.
  const chosen = wanted === 0 ? await pickFreePort(host) : wanted;
  const given = options.publicUrl === undefined ? undefined : trimEndChars(options.publicUrl, "/");
  let publicUrl = given ?? toUrl(host, chosen);
  // The dashboard goes with the admin API: same switch (--no-admin), same trust. Processes sharing a database
  // keep its login tokens and sessions there, on the core's clock, and tell each other of their changes.
  const clock = typeof options.clock === "object" ? options.clock : undefined;
  const dashboard =
    options.admin === false ? undefined : createDashboardHub(shared ? { keys: createDatabaseKeys(database, clock ?? systemClock), shared: database.wakeups } : {});
  const core = await createCore({
    database,
    media,
    clock,
    manualTime: options.clock === "manual" ? createManualTime(options.clockStart ?? new Date()) : undefined,
    writtenBy: options.writtenBy,
    log: options.storageLog,
    // Without a dashboard here, this process's changes still reach the other processes' dashboards.
    events: dashboard?.sink ?? (shared ? toChangeAnnouncer(database.wakeups) : undefined),
    publicUrl: () => publicUrl,
    generator: generatorFromEnv(options.env ?? process.env),
    retrySchedule: options.retrySchedule,
    leaseMs: options.leaseMs,
    publicOnly: options.publicOnly,
    webhooks: { maxEndpoints: options.maxEndpoints, eventRetentionMs: options.eventRetentionMs },
    delays: {
      generationStepMs: options.generationStepMs ?? 0,
      deploymentStepMs: Math.round((options.deployDelayMs ?? 0) / 3),
    },
  });
  let credentials: DevCredentials;
  let adminKey: string | null;
  const notices: string[] = [];
  try {
    credentials = await ensureDevCredentials(core.database, core.clock, core.ids);
    // Processes sharing a database are one service: one admin key, the database's (a different one is refused).
    const ensureKey = shared ? ensureSharedAdminKey : ensureAdminKey;
    adminKey = options.admin === false ? null : await ensureKey(core.database, core.clock, core.ids, options.adminKey);
    if (shared && adminKey) notices.push(`admin key fingerprint ${toAdminKeyFingerprint(adminKey)}, the same on every process of this database`);
  } catch (error) {
    // The core has started workers and timers: a failed start must not leave them.
    await core.close().catch(() => {});
    throw error;
  }
  const { app, flushLog, journal } = createApp({
    core,
    settings: {
      simulate: true,
      adminKey,
      publicUrl: () => publicUrl,
      checkoutRateLimit: options.checkoutRateLimit !== undefined ? options.checkoutRateLimit : options.publicOnly ? PUBLIC_CHECKOUT_RATE_LIMIT : null,
    },
    log: options.log,
    dashboard,
    afterReset: async () => {
      await ensureDevCredentials(core.database, core.clock, core.ids);
    },
  });
  // Whatever escapes the app's own error path is still that request's 500, never the end of the process.
  const handler = toSafeNodeHandler(toNodeHandler(app));
  // Another process may take the picked free port in between: then any free port will do (the URL follows).
  const limits: ConnectionLimits = { ...defaultConnectionLimits(options.publicOnly === true), ...definedOnly(options.connections ?? {}) };
  const listener = await listenOn(handler, host, chosen, limits).catch(async (error: NodeJS.ErrnoException) => {
    if (wanted === 0 && error.code === "EADDRINUSE") return listenOn(handler, host, 0, limits);
    await core.close().catch(() => {});
    throw error;
  });
  const address = listener.server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 4010);
  const url = toUrl(host, port);
  if (!given) publicUrl = url;
  let closing: Promise<DrainReport> | null = null;
  return {
    url,
    adminKey,
    credentials,
    core,
    journal,
    notices,
    dashboardLoginUrl: dashboard ? () => `${url}/_dashboard/login?token=${dashboard.access.issueLogin()}` : null,
    close(closeOptions = {}) {
      closing ??= (async () => {
        const deadline = Date.now() + (closeOptions.drainTimeoutMs ?? Number.POSITIVE_INFINITY);
        const remaining = () => Math.max(0, deadline - Date.now());
        // Live streams never end by themselves: close them first, or the listener would wait on them.
        dashboard?.close();
        // Stops accepting at once; open requests finish (bounded by the same deadline as the background work).
        const requests = await settleWithin(listener.close(), remaining());
        flushLog();
        const report = Number.isFinite(deadline) ? await core.drain(remaining()) : (await core.close(), { left: [] });
        if (!requests) {
          report.left.unshift("requests still being answered");
          listener.server.closeAllConnections?.();
        }
        await media.dispose();
        await database.close();
        await dashboard?.dispose();
        unlock();
        return report;
      })();
      return closing;
    },
  };
}

/** `value` without its undefined fields, so they do not hide the defaults they are spread over. */
function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Whether `work` settled within `ms` (it keeps running either way). */
async function settleWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms === Number.POSITIVE_INFINITY) return work.then(() => true, () => true);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([work.then(() => true, () => true), timeout]);
  clearTimeout(timer);
  return settled;
}

const toUrl = (host: string, port: number) => `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

/** A port nothing listens on now, as the system picks one. */
function pickFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function isPortFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}
