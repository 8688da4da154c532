import { createAccountsService } from "./accounts/accounts-service.js";
import { exportData, importData, resetData, type ImportDocument } from "./db/data-transfer.js";
import { cryptoIds, systemClock, toTimestamp, type Clock, type IdSource } from "./deps.js";
import type { EventSink } from "./events/event-sink.js";
import { createIdempotency } from "./idempotency/idempotency.js";
import { startSweeps, type Sweep } from "./db/sweep-schedule.js";
import { mayHoldLeftWork } from "./db/queue.js";
import { createCursorCodec } from "./lists/cursor.js";
import { createMediaStore } from "./media/media-store.js";
import { createMediaBlobs } from "./media/media-blobs.js";
import type { Storage } from "unstorage";
import { deriveOgImage } from "./generation/page-images.js";
import { createLocalRateWindows, type RateWindows } from "./ports/rate-windows.js";
import { createDatabaseRateWindows } from "./ports/database-rate-windows.js";
import { createProductsService } from "./products/products-service.js";
import { createTemplateGenerator } from "./generation/template-generator.js";
import type { Generator } from "./generation/generation-input.js";
import { createPagesService } from "./pages/pages-service.js";
import { createBuilderLinks } from "./pages/builder-links.js";
import { createDeploymentsService, type DeploymentsService } from "./deployments/deployments-service.js";
import { createSitesService } from "./deployments/sites-service.js";
import { combineSinks, createWebhooks, type WebhookOptions } from "./webhooks/create-webhooks.js";
import type { FetchLike } from "./webhooks/http-attempt.js";
import type { Scheduler } from "./webhooks/scheduler.js";
import { createAccountRepository } from "./accounts/account-repository.js";
import { openDatabase, type Database } from "./db/database.js";
import { watchDatabase } from "./db/guarded-database.js";
import { createUnreadableRows } from "./db/unreadable-rows.js";
import { guardMediaBlobs } from "./media/guarded-media-blobs.js";
import { createTimeControl, MANUAL_JOB_CONCURRENCY, settleOnClock, type ManualTime } from "./time/manual-time.js";
import { combineWorkers, type BackgroundWork } from "./pages/background-work.js";
import { realScheduler } from "./webhooks/scheduler.js";

/** What the core is built from. Everything with side effects is injected. */
export interface CoreDeps {
  /** The relational store (format 3); SQLite `:memory:` when not given, closed by the core then. */
  database?: Database;
  /**
   * The media bytes that go with `database` (`createMediaBlobs(toMediaBlobsPlace(...))`: files in the data
   * dir's `media/` beside an SQLite file, memory beside `:memory:`); memory when not given, disposed by the core then.
   */
  media?: Storage;
  /** Base URL the public addresses (media, builder, sites) are built on. A function: the port may be known late. */
  publicUrl: () => string;
  clock?: Clock;
  /**
   * A manual clock (`lp serve --clock manual`): its clock, scheduler and sleep replace `clock`, `scheduler`
   * and `time.advance` moves it. It is this process's: `lp serve` takes one on memory and SQLite only (processes sharing PostgreSQL keep the machine's).
   */
  manualTime?: ManualTime;
  ids?: IdSource;
  /** Where failures of background work (generation jobs, deployments) are reported; stderr by default. */
  onBackgroundError?: (name: string, error: unknown) => void;
  /**
   * Counts of rate-limited requests (checkout posts). By default in the database on PostgreSQL (shared by
   * every process), in this process's memory on SQLite and memory (one process).
   */
  rateWindows?: RateWindows;
  events?: EventSink;
  /** Writes page copy; the offline template generator by default. */
  generator?: Generator;
  /** Waits; injected so tests never sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** Pauses per step of background work, to make progress visible. Mutable at run time. */
  delays?: Delays;
  /** Sends webhook requests (verification, deliveries) through this fetch instead of the engine's node:http client. */
  fetch?: FetchLike;
  /** Timers for future webhook attempts; a manual scheduler in tests. */
  scheduler?: Scheduler;
  /** Webhook retry delays in ms; DESIGN §9's schedule by default. */
  retrySchedule?: readonly number[];
  /**
   * How long a claim of background work (a generation job, a deployment, a webhook delivery) holds unless
   * renewed: a stopped process's work is taken over by another within it. 30 s by default; shorter in tests
   * that kill processes sharing PostgreSQL and wait for the takeover.
   */
  leaseMs?: number;
  /** Refuse webhook urls on private, loopback, link-local and metadata addresses (`--public`). */
  publicOnly?: boolean;
  /** Names this lp in the store's format marker (`lp 1.2.3`). */
  writtenBy?: string;
  /** Where storage faults and unreadable records are reported; default stderr. */
  log?: (line: string) => void;
  /** Starts a repeating timer (the storage fault's minute count and probe); injected by tests. */
  every?: (ms: number, run: () => void) => () => void;
  /** Finer webhook settings (timeouts, DNS), mostly for tests. */
  webhooks?: Omit<WebhookOptions, "fetch" | "scheduler" | "retrySchedule" | "publicOnly" | "leaseMs">;
}

/** Pauses per step of background work (0: none). */
export interface Delays {
  generationStepMs: number;
  deploymentStepMs: number;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref?.());

/** Builds the domain: every service over the given database and media. */
export async function createCore(given: CoreDeps) {
  const manualTime = given.manualTime;
  // With a manual clock, everything stamped or scheduled follows it.
  const coreDeps: CoreDeps = manualTime ? { ...given, clock: manualTime.clock, scheduler: manualTime.scheduler, sleep: manualTime.sleep } : given;
  const clock = coreDeps.clock ?? systemClock;
  const ids = coreDeps.ids ?? cryptoIds;
  const ownDatabase = !coreDeps.database;
  const database = coreDeps.database ?? (await openDatabase({ kind: "memory" }));
  // Storage faults of the database (and the media blobs beside it) are counted and logged here, probed while they last.
  const { health: storageHealth, place, unguard } = await watchDatabase(database, { clock, log: coreDeps.log, every: coreDeps.every });
  // Rows a read cannot take as their resource (edited by hand, torn) are named in the log once each.
  const unreadableRows = createUnreadableRows({ where: place.file ?? place.where, log: coreDeps.log });
  const deps = coreDeps;
  // Rate-limit windows (checkout posts): counted in the database when processes share it, so the limit is the
  // service's (docs/scale-out.md); a process alone on its file counts in memory, exact and with no write.
  const sharedWindows = !deps.rateWindows && database.kind === "postgres" ? createDatabaseRateWindows(database, clock) : null;
  const rateWindows = deps.rateWindows ?? sharedWindows ?? createLocalRateWindows(() => clock.now().getTime());
  // Keys of what must verify after a restart (cursors, builder links): settings written once, whoever starts first.
  const settings = createAccountRepository({ database, clock });
  const secret = async (name: string) => Buffer.from(await settings.readOrCreateSetting(name, () => ids.bytes(32).toString("base64")), "base64");
  const cursors = createCursorCodec(await secret("cursor_key"));
  const ownMedia = !deps.media;
  const mediaBlobs = guardMediaBlobs(deps.media ?? createMediaBlobs({ kind: "memory" }), storageHealth);
  const media = createMediaStore(mediaBlobs, deps.publicUrl, deriveOgImage);
  const accounts = createAccountsService({ database, clock, ids, unreadableRows });
  const { fetch, scheduler, retrySchedule, publicOnly, leaseMs } = deps;
  // Endpoints, events and deliveries live in the database; its worker claims due deliveries, in any process.
  const webhooks = createWebhooks({ ...deps.webhooks, fetch, scheduler, retrySchedule, publicOnly, leaseMs, database, cursors, clock, ids, unreadableRows });
  // Every service emits to the webhook engine (and to an injected sink as well, when one is given).
  const events = deps.events ? combineSinks(deps.events, webhooks.sink) : webhooks.sink;
  const base = { database, clock, ids, cursors, events, publicUrl: deps.publicUrl, unreadableRows };

  const products = createProductsService({ ...base, media });
  const idempotency = createIdempotency({ database, clock, owner: () => ids.uuid(), unreadableRows });
  // What a previous run left (claimed Idempotency-Keys, queued and claimed work) is recovered and taken below;
  // a new SQLite database (each startLp()) holds none, and its workers wait for the first commit that wakes them.
  const left = await mayHoldLeftWork(database.db, database.dialect, ["idempotency_keys", "page_jobs", "deployments", "webhook_deliveries"]);
  if (left) await idempotency.recover();
  const delays: Delays = deps.delays ?? { generationStepMs: 0, deploymentStepMs: 0 };
  const sleep = deps.sleep ?? realSleep;
  // Generation jobs and deployments are rows their workers claim under this process's id. With a manual clock
  // the two together run at most what its settle counts on.
  const work = {
    owner: ids.uuid(),
    scheduler: deps.scheduler ?? realScheduler,
    concurrency: manualTime ? MANUAL_JOB_CONCURRENCY / 2 : undefined,
    leaseMs,
    onError: deps.onBackgroundError ?? logBackgroundError,
    sleep,
  };
  const pages = createPagesService({
    ...base,
    ...work,
    media,
    generator: deps.generator ?? createTemplateGenerator(),
    products,
    accounts,
    builderLinks: createBuilderLinks({ secret: await secret("builder_key"), clock, publicUrl: deps.publicUrl }),
    stepDelayMs: () => delays.generationStepMs,
    onPageDeleting: (tx, page) => deployments.onPageDeleting(tx, page),
  });
  const deployments: DeploymentsService = createDeploymentsService({
    ...base,
    ...work,
    pages,
    stepDelayMs: () => delays.deploymentStepMs,
  });
  const sites = createSitesService({ database, clock, ids, events, unreadableRows });
  const background: BackgroundWork = combineWorkers({ generation: pages.work, deployment: deployments.work });
  // Deliveries left due by a previous run are taken from now on.
  await webhooks.start({ left });
  // What a stopped process left claimed is settled (SQLite; on PostgreSQL its leases lapse), then the workers take due rows.
  try {
    await pages.startWork({ left });
    await deployments.startWork({ left });
  } catch (error) {
    // A core that does not open leaves no worker running.
    await background.close().catch(() => {});
    throw error;
  }

  // Rows whose time is over are removed now and then: Idempotency-Key records, and the ended rate windows.
  const sweeps: Sweep[] = [{ what: "expired Idempotency-Key record", sweep: idempotency.sweep }];
  if (sharedWindows) sweeps.push({ what: "ended rate window", sweep: sharedWindows.sweep, report: false });
  const sweeper = startSweeps(sweeps, coreDeps.log ?? ((line) => console.error(line)), manualTime?.scheduler);
  // What an advance of a manual clock waits for after each timer: deliveries, jobs not paused on it, a sweep.
  const idleWork = { onIdle: async () => (await webhooks.onIdle(), await sweeper.idle()) };
  const time = createTimeControl(clock, manualTime ? { time: manualTime, settle: settleOnClock(manualTime, background, idleWork) } : null);

  return {
    clock,
    /** The clock's mode, and moving it when it is manual (`/_admin/clock`). */
    time,
    ids,
    /** The background work of pages and deployments (their workers): runs pending, idle, names. */
    queue: background,
    database,
    /** The storage fault under way (writes refused), for `/healthz`. */
    storageHealth,
    rateWindows,
    media,
    accounts,
    products,
    pages,
    deployments,
    sites,
    idempotency,
    delays,
    webhooks,
    admin: {
      /** Empties every table but the settings (the dev credentials, the service's keys) and removes every media file. */
      async reset() {
        await background.onIdle();
        await webhooks.suspend();
        await resetData({ database, media: mediaBlobs });
        await webhooks.reload();
      },
      /** Every table's rows (but the settings) and every media file, as one document of version 3. */
      export: () => exportData({ database, media: mediaBlobs }, { now: toTimestamp(clock.now()) }),
      /**
       * Replaces every row (but the settings) and media file with those of a checked document
       * (`importDocumentSchema`: version 3, or a format-2 export of version 1), all or nothing. Answers the
       * rows written (in all and by table), the media files, and the format-2 records left out.
       */
      async import(doc: ImportDocument) {
        await background.onIdle();
        await webhooks.suspend();
        const counts = await importData({ database, media: mediaBlobs }, doc, { now: toTimestamp(clock.now()) });
        // What the document left due (deliveries) is taken from now on.
        await webhooks.reload();
        const rows = Object.values(counts.tables).reduce((sum, n) => sum + n, 0);
        return { records: rows, media: counts.media, tables: counts.tables, left: counts.left };
      },
    },
    /** Waits for background work to finish (tests, graceful shutdown). */
    async onIdle() {
      await background.onIdle();
      await webhooks.onIdle();
    },
    /** Finishes background work, then stops webhook timers; pending deliveries stay stored for the next start. */
    async close() {
      // Jobs paused on a clock nobody will move any more finish now.
      manualTime?.release();
      await sweeper.stop();
      storageHealth.stop();
      await background.close();
      await webhooks.close();
      await rateWindows.close?.();
      // A database given to the core outlives it, and may be given to the next one.
      unguard();
      if (ownDatabase) await database.close();
      if (ownMedia) await mediaBlobs.dispose();
    },
    /**
     * {@link close} within `timeoutMs`: lets jobs, deployments and delivery attempts in flight finish, and
     * names what is still running when the time is up (what it held is taken over at the next start, or by
     * another process once its leases lapse).
     */
    async drain(timeoutMs: number): Promise<DrainReport> {
      manualTime?.release();
      const report = await drainWithin(timeoutMs, background, webhooks);
      await sweeper.stop();
      storageHealth.stop();
      await rateWindows.close?.();
      // A database given to the core outlives it, and may be given to the next one.
      unguard();
      if (ownDatabase) await database.close();
      if (ownMedia) await mediaBlobs.dispose();
      return report;
    },
  };
}

/** What a drain left unfinished: background tasks by name (`deployment <id>`, `generation <job id>`), or delivery attempts. */
export interface DrainReport {
  left: string[];
}

async function drainWithin(timeoutMs: number, queue: BackgroundWork, webhooks: { close(): Promise<void> }): Promise<DrainReport> {
  let webhooksClosed = false;
  const done = (async () => {
    // This process's runs; rows not yet claimed stay due for the next start (or another process).
    await queue.close();
    await webhooks.close().catch((error: unknown) => console.error("[lp] stopping webhook deliveries failed:", error));
    webhooksClosed = true;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A referenced timer: background steps sleep on unreferenced ones, and without this the process would
  // run out of things to wait for and exit in the middle of the drain.
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  const outcome = await Promise.race([done.then(() => "done" as const), timeout]);
  clearTimeout(timer);
  if (outcome === "done") return { left: [] };
  const left = queue.names();
  if (!webhooksClosed) {
    // Stop the timers of future attempts; attempts in flight are left to redelivery at the next start.
    void webhooks.close().catch(() => {});
    if (left.length === 0) left.push("webhook delivery attempts in flight");
  }
  return { left };
}

export type Core = Awaited<ReturnType<typeof createCore>>;

/** Reports a failed background run once, on stderr. */
function logBackgroundError(name: string, error: unknown): void {
  console.error(`[lp] background task ${name} failed:`, error);
}
