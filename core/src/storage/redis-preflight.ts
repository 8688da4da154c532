import type { Redis } from "ioredis";
import { redactRedisUrl } from "./redis-client.js";
import { ioredis } from "./redis-modules.js";

/** Longest the start-up check of a Redis URL takes before it gives up, so `lp serve` ends within 5 s. */
export const PREFLIGHT_TIMEOUT_MS = 2_500;

/** A Redis URL that cannot serve lp: the one-line reason, for `lp serve` to print before it exits 1. */
export class RedisStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedisStartError";
  }
}

/** The database number a URL names (`/3`), 0 when it names none; null when the path is not a number. */
export function databaseOf(url: string): number | null {
  const path = new URL(url).pathname.replace(/^\//, "");
  if (path === "") return 0;
  return /^\d{1,9}$/.test(path) ? Number(path) : null;
}

/** The reason an error of the first connection gives, in words an operator acts on. */
function explain(error: Error & { code?: string }, url: URL, db: number): string {
  const message = error.message ?? String(error);
  const where = `${url.hostname}:${url.port || 6379}`;
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message)) return `the password (or user) in the URL was refused (${message.split("\n")[0]})`;
  if (/NOAUTH/.test(message)) return "Redis asks for a password and the URL gives none: redis://:PASSWORD@host:port/db (or LP_REDIS_URL)";
  if (/DB index is out of range|invalid DB index/i.test(message)) return `database ${db} does not exist on this Redis (its \`databases\` setting is lower); lp never falls back to database 0`;
  if (error.code === "ENOTFOUND" || error.code === "EAI_AGAIN") return `the host ${url.hostname} cannot be resolved (${error.code})`;
  if (error.code === "ECONNREFUSED") return `nothing accepts connections at ${where} (ECONNREFUSED): start redis-server or fix the host and port`;
  if (url.protocol === "rediss:" && /SSL|TLS|certificate|wrong version|self.signed|handshake|socket disconnected/i.test(message)) return `the TLS connection failed (${message}); rediss:// needs a Redis that speaks TLS and a certificate this host trusts`;
  if (/Unknown RESP type|Protocol error/i.test(message)) return `what answers at ${where} is not Redis (${message.split(".")[0]}): check the host and port`;
  const timedOut = /ETIMEDOUT|timed out|timeout/i.test(message);
  if (timedOut && url.protocol === "rediss:") return `no TLS handshake with ${where} within ${PREFLIGHT_TIMEOUT_MS / 1000} s: rediss:// needs a Redis that speaks TLS on that port`;
  if (timedOut) return `no answer from ${where} within ${PREFLIGHT_TIMEOUT_MS / 1000} s`;
  return message;
}

/**
 * Checks, once at start, that `url` reaches a Redis lp can use: it connects (no retries), authenticates,
 * selects the URL's database (a number out of range is an error, never database 0), pings, and checks the
 * version (7 or newer). Resolves with the server's version and whether `prefix` holds data yet; rejects with a {@link RedisStartError} whose
 * message is one line naming the URL (password masked) and the cause, within {@link PREFLIGHT_TIMEOUT_MS}.
 */
export async function checkRedisAtStart(url: string, prefix: string, timeoutMs = PREFLIGHT_TIMEOUT_MS): Promise<{ version: string; hadData: boolean }> {
  const parsed = new URL(url);
  const db = databaseOf(url);
  const named = `Redis at ${redactRedisUrl(url)}`;
  if (db === null) throw new RedisStartError(`${named}: the path must be a database number (redis://host:port/0)`);
  // The handshake is done by hand, step by step, so each failure has its own reason: ioredis's own would
  // report a refused SELECT as a mere event and go on in database 0.
  const client: Redis = new (ioredis().Redis)(url, {
    lazyConnect: true,
    db: 0,
    password: undefined,
    username: undefined,
    enableReadyCheck: false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    // No timer of ioredis's own for the connection: it outlives a refused connection and would hold the
    // process for seconds after the error. The overall bound below covers a connection that never comes.
    connectTimeout: 0,
    disconnectTimeout: 200,
    commandTimeout: timeoutMs,
  });
  let lastError: Error | null = null;
  client.on("error", (error: Error) => (lastError ??= error));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })), timeoutMs);
  });
  try {
    const check = async () => {
      await client.connect();
      const password = decodeURIComponent(parsed.password);
      const user = decodeURIComponent(parsed.username);
      if (password) await (user ? client.auth(user, password) : client.auth(password));
      if (db !== 0) await client.select(db);
      await client.ping();
      const info = await client.info("server");
      // Every write of a service appends to its change feed: no feed, no data under this prefix yet.
      const hadData = (await client.exists(`${prefix}changes`)) === 1;
      return { version: /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? "unknown", hadData };
    };
    const checking = check();
    // Past the bound, the check may still fail on its own when the client is closed: nothing to report then.
    checking.catch(() => {});
    const { version, hadData } = await Promise.race([checking, timeout]);
    const major = Number(version.split(".")[0]);
    if (Number.isFinite(major) && major < 7) throw new RedisStartError(`${named}: Redis ${version} is too old; lp needs Redis 7 or newer`);
    return { version, hadData };
  } catch (error) {
    if (error instanceof RedisStartError) throw error;
    // ioredis rejects a failed connect with a generic "Connection is closed."; the socket's error says why.
    const cause = lastError && /Connection is closed|connect/i.test((error as Error).message) ? lastError : (error as Error);
    throw new RedisStartError(`${named}: ${explain(cause, parsed, db)}`);
  } finally {
    clearTimeout(timer);
    // A connection that already ended has nothing to close: ioredis would still arm a 2 s timer for it,
    // which keeps the process alive after the error.
    if (client.status !== "end") client.disconnect();
  }
}
