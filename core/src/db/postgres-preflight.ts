/** Longest the start-up check of a PostgreSQL URL takes before it gives up, so `lp serve` ends within 5 s. */
export const POSTGRES_PREFLIGHT_TIMEOUT_MS = 2_500;

/**
 * How long the start-up check may wait for the server when the start must have ended by `deadline` (as
 * `Date.now()` counts; none: {@link POSTGRES_PREFLIGHT_TIMEOUT_MS}): what is left of it, at most that and at
 * least a second. `lp serve` counts its 5 s from its process's start, so a start whose modules loaded slowly
 * (a loaded machine) waits less, rather than ending late.
 */
export function preflightTimeoutMs(deadline?: number): number {
  if (deadline === undefined) return POSTGRES_PREFLIGHT_TIMEOUT_MS;
  return Math.round(Math.min(POSTGRES_PREFLIGHT_TIMEOUT_MS, Math.max(1_000, deadline - Date.now())));
}

/** A PostgreSQL URL that cannot serve lp: the one-line reason, for `lp serve` to print before it exits 1. */
export class PostgresStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PostgresStartError";
  }
}

/** A PostgreSQL URL with its password masked, for messages and logs. */
export function redactDatabaseUrl(text: string): string {
  if (!URL.canParse(text)) return text.replace(/:[^:@/]*@/, ":***@");
  const url = new URL(text);
  if (url.password) url.password = "***";
  return url.href;
}

/** The database a URL names (its path), or null when it names none. */
function databaseOf(url: URL): string | null {
  const name = decodeURIComponent(url.pathname.replace(/^\//, ""));
  return name === "" ? null : name;
}

type PgError = Error & { code?: string; errors?: Array<Error & { code?: string }> };

/** The reason an error of the first connection gives, in words an operator acts on. */
function explain(error: PgError, url: URL, timeoutMs: number): string {
  // A host name with several addresses (localhost: ::1 and 127.0.0.1) fails with one error per address.
  const code = error.code ?? error.errors?.[0]?.code;
  const message = error.message || error.errors?.[0]?.message || String(error);
  const where = `${url.hostname || "the default host"}:${url.port || 5432}`;
  const user = decodeURIComponent(url.username) || "(the default user)";
  if (code === "ECONNREFUSED") return `nothing accepts connections at ${where} (ECONNREFUSED): start the server or fix the host and port`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `the host ${url.hostname} cannot be resolved (${code})`;
  if (code === "ETIMEDOUT" || /timeout|timed out/i.test(message)) return `no answer from ${where} within ${(timeoutMs / 1000).toFixed(1)} s`;
  if (code === "28P01") return `the password for user "${user}" was refused (28P01)`;
  if (code === "28000") return `the server refused user "${user}" (28000: ${message})`;
  if (code === "3D000") return `${message} (3D000): create it first (createdb); lp never falls back to another database`;
  if (code === "57P03") return `the server is not accepting connections yet (57P03: ${message})`;
  if (code === "53300") return `the server has no connection left (53300: ${message}): raise max_connections or lower the number of lp processes`;
  if (code === "ECONNRESET" || /terminated|closed/i.test(message)) return `the server at ${where} closed the connection (${message}): check that it is PostgreSQL and the port is right`;
  return message;
}

/**
 * Checks, once at start, that `url` reaches a PostgreSQL database lp can use: the URL names a database (lp
 * never takes one from PGDATABASE or the user's name), one connection opens (no retries) and answers a
 * query. Rejects with a {@link PostgresStartError} whose message is one line naming the URL (password
 * masked) and the cause, within `timeoutMs`; nothing it opened outlives the check.
 */
export async function checkPostgresAtStart(url: string, timeoutMs = POSTGRES_PREFLIGHT_TIMEOUT_MS): Promise<void> {
  const named = `PostgreSQL at ${redactDatabaseUrl(url)}`;
  if (!/^postgres(?:ql)?:\/\//.test(url) || !URL.canParse(url)) throw new PostgresStartError(`${named}: not a URL like postgres://user@127.0.0.1:5432/lp`);
  const parsed = new URL(url);
  if (databaseOf(parsed) === null) throw new PostgresStartError(`${named} names no database: add it to the path (postgres://user@host:5432/lp)`);
  const pg = await import("pg");
  const client = new pg.default.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  // A connection the server drops after the check is this client's own business, not the process's.
  client.on("error", () => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  // pg's own timeout covers the connection; this one covers a server that accepts it and never answers.
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })), timeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.query("SELECT 1")), timeout]);
  } catch (error) {
    throw new PostgresStartError(`${named} cannot be used: ${explain(error as PgError, parsed, timeoutMs)}`);
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => {});
  }
}
