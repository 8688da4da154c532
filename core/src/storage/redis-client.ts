import type { Redis } from "ioredis";
import { ioredis } from "./redis-modules.js";
import { StorageUnavailableError } from "../errors.js";
import { StorageFaultError } from "./storage-faults.js";

/** Options of {@link createRedisClient}. */
export interface RedisClientOptions {
  /** Names the client in the log line printed when Redis goes away (`data`, `media`...). */
  name: string;
  /** Where a lost or restored connection is reported; default stderr through console.error. */
  log?: (line: string) => void;
}

// Server replies that mean "not now" rather than "wrong": Redis restarting, replaying its AOF, a script
// running too long, or full (`maxmemory` with `noeviction`). Anything else it says is a bug, not an outage.
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|OOM)\b/;

// What ioredis says when a command meets no connection (closed, not writeable, timed out).
const CONNECTION_MESSAGE = /Connection is closed|Stream isn't writeable|Command timed out|enableOfflineQueue|connect ETIMEDOUT|Connection lost/i;

/** The URL without its password, for messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid Redis URL)";
  }
}

/**
 * A client for lp's own commands (records, media, the change feed). Commands sent while the connection is
 * down fail at once instead of queueing (no request waits on an outage), the connection is retried forever
 * with a backoff capped at one second, and `error` events are logged once per outage, never thrown.
 * Commands issued before the first connection wait for that first attempt only (each failed attempt fails
 * the queued commands), so `lp serve` with a wrong URL or no Redis ends at once with a clear error.
 */
export function createRedisClient(url: string, options: RedisClientOptions): Redis {
  const log = options.log ?? ((line: string) => console.error(line));
  const client = new (ioredis().Redis)(url, {
    enableOfflineQueue: true,
    connectTimeout: 2_000,
    commandTimeout: 10_000,
    // Commands in flight when the connection drops are failed at the next close, not resent: the caller
    // gets a 503 and retries (with its Idempotency-Key) instead of waiting on an outage of unknown length.
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
    connectionName: `lp-${options.name}`,
  });
  let connectedOnce = false;
  let down = false;
  client.on("ready", () => {
    if (!connectedOnce) {
      connectedOnce = true;
      // From now on an outage fails commands at once (503) instead of queueing them.
      client.options.enableOfflineQueue = false;
    }
    if (down) log(`[lp] redis (${options.name}): connection restored`);
    down = false;
  });
  const lost = (why: string) => {
    if (!down) log(`[lp] redis (${options.name}) at ${redactRedisUrl(url)}: ${why}; retrying`);
    down = true;
  };
  client.on("error", (error: Error) => lost(error.message));
  refuseWrongDatabase(client);
  // A drop that is not an error (the server closed the socket) is an outage too; a quit never reconnects.
  client.on("reconnecting", () => lost("connection lost"));
  return client;
}

const WRONG_DATABASE = /DB index is out of range|invalid DB index/i;

/**
 * ioredis reports a refused SELECT (the URL's database does not exist, as after a restart of Redis with a
 * lower `databases` setting) as a mere `error` event and goes on in database 0. This drops such a
 * connection before it is ready, so nothing is ever read from or written to database 0 by mistake; it is
 * retried like any outage, and requests get 503 meanwhile.
 */
export function refuseWrongDatabase(client: Redis): void {
  client.on("error", (error: Error) => {
    if (WRONG_DATABASE.test(error.message ?? "")) client.disconnect(true);
  });
}

/** Whether an error from ioredis means Redis cannot serve now (as opposed to a rejected command). */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // A MULTI refused as a whole carries what refused its commands (OOM when Redis is full).
  if (/^EXECABORT/.test(error.message)) return ((error as { previousErrors?: unknown[] }).previousErrors ?? []).some(isRedisUnavailable);
  if (error.name === "ReplyError") return TRANSIENT_REPLY.test(error.message);
  if (error.name === "MaxRetriesPerRequestError") return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (code && /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTCONN)$/.test(code)) return true;
  return CONNECTION_MESSAGE.test(error.message);
}

function isRedisOom(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (/^EXECABORT/.test(error.message)) return ((error as { previousErrors?: unknown[] }).previousErrors ?? []).some(isRedisOom);
  return error.name === "ReplyError" && /^OOM\b/.test(error.message);
}

/** Runs a Redis call, turning an outage into {@link StorageUnavailableError}. */
export async function redisCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // At maxmemory Redis still serves reads: a refused write is a fault of its own (507), not an outage.
    if (isRedisOom(error)) throw new StorageFaultError("redis_maxmemory", "OOM");
    if (isRedisUnavailable(error)) throw new StorageUnavailableError(undefined, { cause: error });
    throw error;
  }
}
