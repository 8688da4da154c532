import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCore, openDatabase, createMediaBlobs, toMediaBlobsPlace, type Database, type DatabaseTarget, createManualClock, createManualScheduler, createManualTime, ensureDevCredentials, type CoreDeps } from "@lp/core";
import { createApp } from "../app.js";
import type { RouteDef } from "../http/route.js";
import { createConformanceCheck } from "./response-conformance.js";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { testPostgresDatabase } from "../../../core/src/testing/test-postgres.js";

/** Options of {@link createTestApp}. */
export interface TestAppOptions {
  /** Default: `LP_TEST_STORAGE` (memory, sqlite or postgres), else memory. */
  storage?: TestStorage;
  start?: string;
  /** More core dependencies (webhook fetch, retry schedule, timeouts). */
  coreDeps?: Partial<Omit<CoreDeps, "database" | "clock" | "publicUrl">>;
  /**
   * Check every answer `call` gets against the response schema `/v1/openapi.json` documents for its route
   * and status (on by default); a mismatch throws, naming both. Off only for suites that break the server
   * on purpose.
   */
  conformance?: boolean;
  /** The embedded SQLite store (`lp.db` and `media/`) in this folder (kept by `close()`), e.g. a small tmpfs for a test of a full disk. */
  dataDir?: string;
  /** The relational store to use instead of a fresh one; closed by `close()`. */
  database?: Database;
  /**
   * The clock of `lp serve --clock manual` instead of the frozen one: `/_admin/clock` moves it, and
   * background pauses and retries wait on it (then `release()` and `scheduler` do nothing).
   */
  manualClock?: boolean;
  /** Routes of the test itself, served by the same pipeline as the API's. */
  extraRoutes?: RouteDef[];
}

/**
 * A complete app over fresh storage with a frozen clock and the dev credentials, for tests that go
 * through `app.request()`. `sqlite` storage lives in a temporary folder removed by `close()`; `postgres` in a
 * schema of its own on the run's PostgreSQL server (test-postgres.ts), dropped by `close()`.
 */
export async function createTestApp(options: TestAppOptions = {}) {
  const kind = options.dataDir ? "sqlite" : (options.storage ?? defaultTestStorage());
  const postgres = kind === "postgres" && !options.database ? await testPostgresDatabase() : null;
  const dir = kind === "sqlite" && !options.dataDir && !options.database ? mkdtempSync(join(tmpdir(), "lp-test-")) : undefined;
  const databaseDir = dir ?? options.dataDir;
  const target: DatabaseTarget = kind === "sqlite" && databaseDir ? { kind: "sqlite", file: join(databaseDir, "lp.db") } : { kind: "memory" };
  const database = options.database ?? postgres?.database ?? (await openDatabase(target));
  const start = options.start ?? "2026-03-01T10:00:00.000Z";
  const manualTime = options.manualClock ? createManualTime(start) : undefined;
  const clock = manualTime?.clock ?? createManualClock(start);
  // The media bytes that go with the database: its media table on PostgreSQL, files in the data dir's media/
  // folder beside an SQLite file, memory beside :memory:.
  const media = createMediaBlobs(database.dialect === "postgres" ? { kind: "database", db: database.db, clock } : toMediaBlobsPlace(target, database, { clock }));
  const publicUrl = "http://lp.test";
  // Background steps wait on this instead of real time: a test releases them when it wants them to go on.
  const waiting: (() => void)[] = [];
  let closing = false;
  const sleep = () => (closing ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve)));
  // Webhook retries wait on this scheduler, which moves only when a test advances it (with the clock).
  const scheduler = createManualScheduler(clock);
  const core = await createCore({ database, media, clock, sleep, scheduler, manualTime, publicUrl: () => publicUrl, ...options.coreDeps });
  const creds = await ensureDevCredentials(database, clock, core.ids);
  const adminKey = "lpadm_test_key";
  const afterReset = async () => void (await ensureDevCredentials(database, clock, core.ids));
  const built = createApp({ core, settings: { simulate: true, adminKey, publicUrl: () => publicUrl }, log: null, afterReset, extraRoutes: options.extraRoutes });
  const account = `/v1/accounts/${creds.account_id}`;
  const conform = options.conformance === false ? null : createConformanceCheck(built.routes, built.openapi);

  /** A request with the dev token unless `token` says otherwise (null sends none). */
  async function call(method: string, path: string, init: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: BodyInit } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    const token = init.token === undefined ? creds.token : init.token;
    if (token) headers.authorization ??= `Bearer ${token}`;
    let body: BodyInit | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    const url = path.startsWith("/") ? path : `${account}/${path}`;
    const res = await built.app.request(url, { method, headers, body });
    const text = await res.text();
    conform?.({ method, path: url, status: res.status, contentType: res.headers.get("content-type"), text });
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /**
   * `app.request` with the same response check as `call`, for suites whose client brings its own fetch
   * (@lp/client, the CLI): what they receive is held to the document too.
   */
  async function fetch(input: Request | URL | string, init?: RequestInit): Promise<Response> {
    const res = await built.app.request(input instanceof URL ? input.href : input, init);
    if (conform) {
      const method = init?.method ?? (input instanceof Request ? input.method : "GET");
      const url = new URL(input instanceof Request ? input.url : String(input), publicUrl);
      const text = await res.clone().text();
      conform({ method, path: url.pathname, status: res.status, contentType: res.headers.get("content-type"), text });
    }
    return res;
  }

  return {
    ...built,
    fetch,
    core,
    clock,
    scheduler,
    creds,
    adminKey,
    account,
    call,
    /** The response check `call` runs (null when `conformance: false`), for suites that send requests themselves. */
    conform,
    /** Lets every background step paused on a delay go on. */
    release() {
      for (const resolve of waiting.splice(0)) resolve();
    },
    admin: (method: string, path: string, body?: unknown) => call(method, path, { body, token: adminKey }),
    async close() {
      core.delays.generationStepMs = 0;
      core.delays.deploymentStepMs = 0;
      closing = true;
      for (const resolve of waiting.splice(0)) resolve();
      await core.close();
      await media.dispose();
      await database.close();
      await postgres?.remove();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

/** The stores a test app can run on. */
export type TestStorage = "memory" | "sqlite" | "postgres";

/** The storage `createTestApp()` uses when none is asked for: `LP_TEST_STORAGE`, else memory. */
export function defaultTestStorage(): TestStorage {
  const wanted = process.env.LP_TEST_STORAGE;
  if (wanted === undefined || wanted === "") return "memory";
  if (wanted === "memory" || wanted === "sqlite" || wanted === "postgres") return wanted;
  throw new Error(`LP_TEST_STORAGE must be memory, sqlite or postgres, not ${JSON.stringify(wanted)}`);
}

/**
 * The storage kinds a suite that matters for storage runs on: memory and sqlite, or only PostgreSQL when the
 * run is the PostgreSQL one (`LP_TEST_STORAGE=postgres`, the `postgres` project of vitest.config.ts).
 */
export function testStorages(): TestStorage[] {
  const wanted = defaultTestStorage();
  return wanted === "postgres" ? ["postgres"] : ["memory", "sqlite"];
}
