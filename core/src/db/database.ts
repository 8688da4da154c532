import { randomBytes } from "node:crypto";
import { chmodSync, existsSync } from "node:fs";
import { dirname } from "node:path";
import { Kysely, sql, type Dialect as KyselyDialect, type Transaction } from "kysely";
import { createNotifier, type Notifier } from "./notify.js";
import { openSqlite, type SqliteDatabase } from "../storage/sqlite.js";
import { toDatabaseFault } from "./faults.js";
import { migrateToLatest } from "./migrate.js";
import { loadMemorySchema, rememberMemorySchema } from "./memory-schema.js";
import { createSchemaIntrospector } from "./postgres-introspector.js";
import { createNodeSqliteDialect } from "./sqlite-dialect.js";
import { hookedDialect, registerHooks } from "./statement-hooks.js";
import type { Tables } from "./tables.js";

/** The two engines lp's schema runs on: one query layer (Kysely), two dialects. */
export type Dialect = "sqlite" | "postgres";

/** Where a database is: an SQLite file, SQLite in memory (`--storage memory`), or a PostgreSQL server. */
export type DatabaseTarget =
  | { kind: "sqlite"; file: string }
  | { kind: "memory" }
  | { kind: "postgres"; url: string; /** Connections of the pool (default 10). */ maxConnections?: number };

/** A transaction: every query made through it commits together, or not at all. */
export type Tx = Transaction<Tables>;
/** The query builder of the database or of a transaction; repositories take either. */
export type Queries = Kysely<Tables>;

/** An open database with lp's schema, migrated to this version. */
export interface Database {
  readonly dialect: Dialect;
  /** Where it is: an SQLite file, SQLite in memory, or PostgreSQL (what `/healthz` names as the storage). */
  readonly kind: DatabaseTarget["kind"];
  /** Queries outside a transaction (single statements, reads). */
  readonly db: Kysely<Tables>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. On SQLite
   * transactions run one at a time on the process's one connection; on PostgreSQL each takes a pooled
   * connection, and rows it must hold against other processes are locked with `forUpdate`.
   */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** Wake-ups of the workers of every process on this database (see {@link Wakeups}). */
  readonly wakeups: Wakeups;
  close(): Promise<void>;
}

/**
 * Tells the processes sharing a database that rows of a queue table may have become due, so their workers
 * claim now rather than at their next timer, and what changed, so their dashboards' live streams follow every
 * process's changes. On PostgreSQL it is `NOTIFY` (channels `lp_due_<schema>_<table>` and
 * `lp_changes_<schema>`), heard by one listening connection per process; on SQLite (one process per file) it
 * does nothing.
 */
export interface Wakeups {
  /** Sent after a commit that made rows of `table` due (best effort: a lost one only waits for the next timer). */
  announce(table: string): void;
  /** Calls `handler` whenever a process announces `table` (other than this one: its own workers claimed when it announced), and once after a reconnection. */
  listen(table: string, handler: () => void): void;
  /**
   * Sent after the commit of a change (best effort: a lost one only means another process's dashboard shows it
   * at its next refresh). Resolves once sent or given up on; never rejects.
   */
  announceChange(change: AnnouncedChange): Promise<void>;
  /**
   * Calls `handler` with each change another process announced (never this process's own: it told its
   * listeners itself). Resolves once this process listens (a failure is reported on stderr, never rejected).
   */
  listenChanges(handler: (change: AnnouncedChange) => void): Promise<void>;
}

/** A change as processes tell each other of it: the event's type and account (what a live view refreshes on). */
export interface AnnouncedChange {
  type: string;
  account_id: string;
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** Apply the migrations this lp has and the database lacks (default true). */
  migrate?: boolean;
}

/**
 * Opens a database and brings its schema to this version. SQLite runs in WAL with `synchronous=NORMAL` (a
 * commit is durable once the WAL is checkpointed or the next fsync happens; a process crash loses nothing,
 * only a power loss can take the last transactions), foreign keys on, and its file readable by its owner
 * alone. PostgreSQL runs on a pool; `bigint` and JSON columns come back as numbers and text, as on SQLite.
 */
export async function openDatabase(target: DatabaseTarget, options: OpenDatabaseOptions = {}): Promise<Database> {
  const migrate = options.migrate !== false;
  const { db, dialect, sqlite, loaded } = target.kind === "postgres" ? { ...(await openPostgres(target.url, target.maxConnections ?? 10)), sqlite: null, loaded: false } : openSqliteKysely(target, migrate);
  try {
    if (migrate && !loaded) {
      await migrateToLatest(db, dialect);
      if (target.kind === "memory") rememberMemorySchema(sqlite!);
    }
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }
  const wakeups = target.kind === "postgres" ? createPostgresWakeups(db, target.url) : { announce() {}, listen() {}, announceChange: async () => {}, listenChanges: async () => {}, close: async () => {} };
  return {
    dialect,
    kind: target.kind,
    db,
    wakeups,
    async transaction(work) {
      const callbacks: Array<() => void> = [];
      const result = await db.transaction().execute((tx) => {
        commitCallbacks.set(tx, callbacks);
        return work(tx);
      });
      for (const callback of callbacks) {
        try {
          callback();
        } catch {
          // What follows a commit (a wake-up) is not the transaction's to fail: it committed.
        }
      }
      return result;
    },
    async close() {
      await wakeups.close();
      await db.destroy();
    },
  };
}

/** {@link Wakeups} over PostgreSQL's NOTIFY, and LISTEN on one connection of its own (db/notify.ts), opened at the first listen. */
function createPostgresWakeups(db: Kysely<Tables>, url: string): Wakeups & { close(): Promise<void> } {
  let notifier: Notifier | null = null;
  // Names this process's announcements, so that its listener leaves them out.
  const self = randomBytes(9).toString("base64url");
  // Channels are the database's, not a schema's: each lp database (a schema) names its own, so lp databases in
  // schemas of one PostgreSQL database never wake each other's workers.
  // Asked at the first announce or listen, not at the opening: a database that never wakes a worker makes no
  // query for it.
  let schema: Promise<string> | null = null;
  const schemaName = async () => {
    schema ??= sql<{ schema: string }>`select current_schema() as schema`
      .execute(db)
      .then((r) => (r.rows[0]?.schema ?? "public").toLowerCase().replace(/[^a-z0-9_]/g, "_"));
    // A failed question is asked again at the next use rather than remembered as another schema's name.
    return schema.catch((error: unknown) => ((schema = null), Promise.reject(error)));
  };
  const channel = async (table: string) => `lp_due_${await schemaName()}_${table}`.slice(0, 63);
  const changesChannel = async () => `lp_changes_${await schemaName()}`.slice(0, 63);
  const report = (error: unknown) => console.error(`[lp] wake-ups of other processes: ${error instanceof Error ? error.message : String(error)}`);
  const listening = () => (notifier ??= createNotifier({ dialect: "postgres" }, { url }));
  return {
    announce(table) {
      void channel(table).then((name) => sql`select pg_notify(${name}, ${self})`.execute(db)).catch(() => {});
    },
    listen(table, handler) {
      const notifications = listening();
      // This process's own announcements come back too: its workers claimed already when they announced.
      void channel(table).then((name) => notifications.listen(name, (payload) => payload !== self && handler())).catch(report);
    },
    async announceChange(change) {
      const payload = JSON.stringify({ from: self, type: change.type, account_id: change.account_id });
      // NOTIFY takes at most 8000 bytes; a type and an id are far below, and anything longer is not one.
      if (payload.length > 4000) return;
      await changesChannel()
        .then((name) => sql`select pg_notify(${name}, ${payload})`.execute(db))
        .then(() => {}, () => {});
    },
    async listenChanges(handler) {
      const notifications = listening();
      await changesChannel()
        .then((name) =>
          notifications.listen(name, (payload) => {
            // After a reconnection (null) there is nothing to pass on: what was lost shows at the next refresh.
            const change = payload === null ? null : toAnnouncedChange(payload, self);
            if (change) handler(change);
          }),
        )
        .then(() => {}, report);
    },
    close: async () => notifier?.close(),
  };
}

/** The change a `lp_changes_<schema>` payload names, unless this process sent it (it told its own listeners) or it is not one. */
function toAnnouncedChange(payload: string, self: string): AnnouncedChange | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return null;
  }
  const { from, type, account_id } = (parsed ?? {}) as Record<string, unknown>;
  if (from === self || typeof type !== "string" || typeof account_id !== "string") return null;
  return { type, account_id };
}

// The callbacks of each transaction of `Database.transaction` under way, by its `Tx`.
const commitCallbacks = new WeakMap<object, Array<() => void>>();

/**
 * Calls `callback` once the transaction `q` has committed (never when it rolls back): what must see its rows,
 * such as a worker woken to claim them, which on PostgreSQL would not see them before. With queries outside
 * a transaction of `Database.transaction`, at once.
 */
export function afterCommit(q: Queries, callback: () => void): void {
  const callbacks = commitCallbacks.get(q);
  if (callbacks) callbacks.push(callback);
  else callback();
}

/**
 * Opens an SQLite file or `:memory:` with the connection's pragmas. With `loadSchema`, a memory database takes the
 * schema a process's first one was migrated to (memory-schema.ts), when there is one yet: `loaded` says so.
 */
function openSqliteKysely(target: { kind: "sqlite"; file: string } | { kind: "memory" }, loadSchema: boolean): { db: Kysely<Tables>; dialect: Dialect; sqlite: SqliteDatabase; loaded: boolean } {
  const file = target.kind === "memory" ? ":memory:" : target.file;
  const created = file !== ":memory:" && !existsSync(file);
  const sqlite = openSqlite(file, { busyTimeoutMs: 5000 });
  let loaded = false;
  try {
    // Before the pragmas: a schema loaded as pages starts with the engine's defaults.
    if (target.kind === "memory" && loadSchema) loaded = loadMemorySchema(sqlite);
    if (file !== ":memory:") {
      sqlite.exec("PRAGMA journal_mode = WAL");
      // The WAL and shared-memory files SQLite creates take the database file's mode.
      if (created) chmodSync(file, 0o600);
    }
    sqlite.exec("PRAGMA synchronous = NORMAL");
    sqlite.exec("PRAGMA foreign_keys = ON");
  } catch (error) {
    // A full or read-only disk refuses the first pragma: the file stays open otherwise, and its disk busy.
    sqlite.close();
    throw toOpenRefusal(file, error);
  }
  return { db: hooked(createNodeSqliteDialect(sqlite)), dialect: "sqlite", sqlite, loaded };
}

/** What to do about a disk that refuses an SQLite file at its opening. */
const OPEN_FAULTS: Partial<Record<string, string>> = {
  disk_full: "its disk is full; make room there and start again",
  read_only: "its file system is read-only; make it writable and start again",
  permission_denied: "lp may not write there; give its user the folder and start again",
};

/**
 * The error of an SQLite file its disk refuses at the opening, naming the file and the errno (SQLite needs
 * room for the write-ahead log's shared-memory file, `-shm`, even to read: `SQLITE_IOERR_SHMSIZE` on a full
 * disk), with the engine's own fields; any other error as it is.
 */
function toOpenRefusal(file: string, error: unknown): unknown {
  const fault = toDatabaseFault(error, { dir: dirname(file) });
  const advice = fault && OPEN_FAULTS[fault.reason];
  if (!advice) return error;
  // The engine's fields stay, so what reads an SQLite error reads this one alike.
  const { code, errcode, errstr } = error as { code?: unknown; errcode?: unknown; errstr?: unknown };
  return Object.assign(new Error(`Cannot open ${file} (${fault.sysCode}): ${advice}.`, { cause: error }), { code, errcode, errstr });
}

// PostgreSQL type ids whose text lp reads itself: int8 as a number (counts, byte sizes stay far below 2^53),
// json and jsonb as the text, parsed where the row is read, as SQLite answers it.
const INT8 = 20;
const JSON_OID = 114;
const JSONB = 3802;

async function openPostgres(url: string, max: number): Promise<{ db: Kysely<Tables>; dialect: Dialect }> {
  const [{ PostgresDialect }, pg] = await Promise.all([import("kysely"), import("pg")]);
  const types = pg.default.types;
  const pool = new pg.default.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: 5000,
    // A server that goes silent on an open connection (a partition) fails the query instead of holding it.
    query_timeout: 15_000,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") => {
        if (oid === INT8) return (text: string) => Number(text);
        if (oid === JSON_OID || oid === JSONB) return (text: string) => text;
        return types.getTypeParser(oid, format);
      }) as typeof types.getTypeParser,
    },
  });
  // An idle connection that drops (the server restarted) is an error of the pool, not of the process.
  pool.on("error", () => {});
  // So is one that drops while lent out: a backend the server ends (shutdown, pg_terminate_backend) fails its
  // query, and its connection goes back to the pool before its socket is seen closing; lent out again, the
  // close would be an 'error' event with no listener, which ends the process. Its queries fail instead, and
  // the pool drops it when it comes back.
  pool.on("connect", (client) => client.on("error", () => {}));
  // The migrator sees this connection's schema only (postgres-introspector.ts).
  class SchemaScopedDialect extends PostgresDialect {
    override createIntrospector(db: Kysely<any>) {
      return createSchemaIntrospector(db);
    }
  }
  return { db: hooked(new SchemaScopedDialect({ pool })), dialect: "postgres" };
}

/** The query layer over `dialect`, with a place for the hooks of `statement-hooks.ts` (storage faults, tests' injected ones). */
function hooked(dialect: KyselyDialect): Kysely<Tables> {
  const { dialect: withHooks, hooks } = hookedDialect(dialect);
  const db = new Kysely<Tables>({ dialect: withHooks });
  registerHooks(db, hooks);
  return db;
}
