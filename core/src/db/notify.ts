import { sql } from "kysely";
import type { Client } from "pg";
import { realScheduler, type Scheduler, type TimerHandle } from "../webhooks/scheduler.js";
import type { Database, Queries } from "./database.js";

/**
 * Called with a notification's payload (`""` when it had none), or with null after the listening connection
 * came back from an outage: notifications sent meanwhile are lost, so the listener looks for itself (a worker
 * claims).
 */
export type NotificationHandler = (payload: string | null) => void;

/** Wake-ups across the processes that share one database. */
export interface Notifier {
  /**
   * Sends `payload` on `channel` from within `tx`: PostgreSQL delivers it when the transaction commits, and
   * never if it rolls back. On SQLite it does nothing: the processes sharing a file are one, and the caller
   * wakes its own workers after the commit.
   */
  notify(tx: Queries, channel: string, payload?: string): Promise<void>;
  /**
   * Calls `handler` for each notification on `channel`; resolves once the channel is listened to (while the
   * server is away, once it is back), with a function that stops this handler. On SQLite it registers nothing.
   */
  listen(channel: string, handler: NotificationHandler): Promise<() => Promise<void>>;
  /** Ends the listening connection; handlers are called no more. */
  close(): Promise<void>;
}

/** Options of {@link createNotifier}. */
export interface NotifierOptions {
  /** The server's address (required on PostgreSQL): listening takes a connection of its own, outside the pool. */
  url?: string;
  /** Timers of the reconnection's back-off (default: real timers). */
  scheduler?: Scheduler;
  /** Reports the loss of the listening connection, once per outage (default: one line on stderr). */
  onError?: (error: unknown) => void;
}

// Channels are lower-case identifiers, so that LISTEN's quoted name and pg_notify's text are the same channel;
// PostgreSQL cuts identifiers at 63 bytes.
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;
// Reconnection: the first retry after 100 ms, then twice as long each time, at most 5 s apart.
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MOST_MS = 5_000;

function assertChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new Error(`a notification channel is a lower-case identifier of at most 63 characters, not ${JSON.stringify(channel)}`);
}

const reportLoss = (error: unknown) => console.error(`[lp] the database connection that listens for wake-ups was lost; reconnecting: ${error instanceof Error ? error.message : String(error)}`);

/**
 * Creates the {@link Notifier} of `database`. On PostgreSQL, `notify` is `pg_notify` in the caller's
 * transaction and `listen` shares one dedicated `pg` client, opened on the first listen, that reconnects with a
 * back-off whenever the server goes away and then calls every handler once. On SQLite both do nothing.
 */
export function createNotifier(database: Pick<Database, "dialect">, options: NotifierOptions = {}): Notifier {
  if (database.dialect === "sqlite") {
    return {
      async notify(_tx, channel) {
        assertChannel(channel);
      },
      async listen(channel) {
        assertChannel(channel);
        return () => Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
  }
  const { url } = options;
  if (!url) throw new Error("createNotifier on PostgreSQL needs the server's url: listening takes a connection of its own");
  return createPostgresListener(url, options.scheduler ?? realScheduler, options.onError ?? reportLoss);
}

function createPostgresListener(url: string, scheduler: Scheduler, onError: (error: unknown) => void): Notifier {
  const handlers = new Map<string, Set<NotificationHandler>>();
  // The client of the attempt under way or of the live connection; `live` once its LISTENs are in place.
  let current: Client | null = null;
  let live = false;
  // Channels listened to on the live connection.
  let listened = new Set<string>();
  let connecting: Promise<void> | null = null;
  let retry: TimerHandle | null = null;
  let failures = 0;
  let connectedBefore = false;
  let closed = false;
  const waiters: Array<() => void> = [];
  // One statement at a time on the listening connection: listens of several channels come at once, and pg
  // deprecates queueing queries on a client that is running one (pg 9 refuses it).
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = (client: Client, text: string) => {
    const next = turn.then(() => client.query(text));
    turn = next.catch(() => {});
    return next;
  };

  const call = (handler: NotificationHandler, payload: string | null) => {
    try {
      handler(payload);
    } catch (error) {
      onError(error);
    }
  };

  /** Drops the connection of `client` (if it is still the current one) and reconnects after a back-off. */
  function fail(client: Client, error: unknown): void {
    if (current !== client) return;
    current = null;
    live = false;
    listened = new Set();
    client.end().catch(() => {});
    if (closed) return;
    if (failures++ === 0) onError(error);
    retry = scheduler.setTimeout(
      () => {
        retry = null;
        ensureConnecting();
      },
      Math.min(RECONNECT_FIRST_MS * 2 ** (failures - 1), RECONNECT_MOST_MS),
    );
  }

  async function connect(): Promise<void> {
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: 5000 });
    current = client;
    client.on("error", (error) => fail(client, error));
    client.on("end", () => fail(client, new Error("the server closed the connection")));
    client.on("notification", (message) => {
      for (const handler of handlers.get(message.channel) ?? []) call(handler, message.payload ?? "");
    });
    try {
      await client.connect();
      const channels = [...handlers.keys()];
      for (const channel of channels) await inTurn(client, `LISTEN ${client.escapeIdentifier(channel)}`);
      if (current !== client) return;
      if (closed) {
        current = null;
        await client.end().catch(() => {});
        return;
      }
      live = true;
      listened = new Set(channels);
      failures = 0;
      for (const resolve of waiters.splice(0)) resolve();
      // What was sent while the connection was down is lost: every listener looks for itself once.
      if (connectedBefore) for (const set of [...handlers.values()]) for (const handler of [...set]) call(handler, null);
      connectedBefore = true;
    } catch (error) {
      fail(client, error);
    }
  }

  function ensureConnecting(): void {
    if (closed || current || connecting || retry) return;
    connecting = connect().finally(() => {
      connecting = null;
    });
  }

  /** The live client, once there is one (null once closed). */
  function liveClient(): Promise<Client | null> {
    if (closed) return Promise.resolve(null);
    if (live && current) return Promise.resolve(current);
    ensureConnecting();
    return new Promise<void>((resolve) => waiters.push(resolve)).then(() => (live ? current : null));
  }

  /** Resolves once `channel` is listened to on the live connection. */
  async function listenOn(channel: string): Promise<void> {
    for (;;) {
      const client = await liveClient();
      if (!client || listened.has(channel)) return;
      try {
        await inTurn(client, `LISTEN ${client.escapeIdentifier(channel)}`);
        if (client === current && live) {
          listened.add(channel);
          return;
        }
      } catch {
        // The connection was lost: the next one listens to every channel that has a handler.
      }
    }
  }

  return {
    async notify(tx, channel, payload = "") {
      assertChannel(channel);
      await sql`select pg_notify(${channel}, ${payload})`.execute(tx);
    },
    async listen(channel, handler) {
      assertChannel(channel);
      if (closed) throw new Error("the notifier is closed");
      let set = handlers.get(channel);
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(handler);
      await listenOn(channel);
      return async () => {
        set.delete(handler);
        if (set.size > 0 || handlers.get(channel) !== set) return;
        handlers.delete(channel);
        const client = current;
        if (live && client && listened.delete(channel)) await inTurn(client, `UNLISTEN ${client.escapeIdentifier(channel)}`).catch(() => {});
      };
    },
    async close() {
      closed = true;
      retry?.cancel();
      retry = null;
      handlers.clear();
      for (const resolve of waiters.splice(0)) resolve();
      await connecting;
      const client = current;
      current = null;
      live = false;
      if (client) await client.end().catch(() => {});
    },
  };
}
