import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sqliteCodeOf } from "../storage/sqlite.js";
import { StorageFaultError, type StorageFaultReason } from "../storage/storage-faults.js";

/** Options of {@link toDatabaseFault}. */
export interface DatabaseFaultOptions {
  /**
   * The folder of the SQLite file. SQLite does not say which errno it saw: a full disk can surface as
   * `SQLITE_IOERR` (its shared-memory file cannot grow) and a read-only one as `SQLITE_CANTOPEN`. With the
   * folder, an SQLite error that can come from the disk is settled by writing one byte there and reading the
   * errno the file system gives, as the embedded store's writer does.
   */
  dir?: string;
}

// What the file system's own answer means, for the byte written beside the database and for a cause.
const ERRNO_REASONS: Record<string, StorageFaultReason> = {
  ENOSPC: "disk_full",
  EDQUOT: "disk_full",
  EROFS: "read_only",
  EACCES: "permission_denied",
  EPERM: "permission_denied",
};

// SQLite's primary codes that can come from the disk, and what each means when the disk does not say more.
// An I/O error alone (a failing device) is no fault lp can name: it stays an error.
const SQLITE_REASONS: Record<string, StorageFaultReason | null> = {
  SQLITE_FULL: "disk_full",
  SQLITE_IOERR: null,
  SQLITE_READONLY: "read_only",
  SQLITE_PERM: "permission_denied",
  SQLITE_CANTOPEN: "permission_denied",
  SQLITE_AUTH: "permission_denied",
};

// The socket to PostgreSQL refused, reset, timed out or unroutable: the server is down or out of reach.
const UNREACHABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

// What pg and its pool say when a connection ends under a query or cannot be had in time
// (`connectionTimeoutMillis`); they carry no code.
const UNREACHABLE_MESSAGES: Array<[RegExp, string]> = [
  [/^Connection terminated due to connection timeout/, "connect timeout"],
  [/^timeout exceeded when trying to connect/, "connect timeout"],
  [/^Connection terminated/, "connection terminated"],
  [/^Client has encountered a connection error and is not queryable/, "connection terminated"],
  [/^Query read timeout/, "read timeout"],
];

type EngineError = { errcode?: unknown; code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };

/**
 * The fault a database error means, as Kysely passes it on from either engine, or null when it is not one (a
 * constraint, a bug, a conflict to retry). The server answers the fault without a stack trace:
 * - no room: `SQLITE_FULL`, PostgreSQL's 53100 (disk full) and the other 53xxx (out of memory, a
 *   configuration limit) are `disk_full`, 507 `insufficient_storage`;
 * - `SQLITE_READONLY` is `read_only`, `SQLITE_PERM`, `SQLITE_CANTOPEN`, `SQLITE_AUTH` `permission_denied`,
 *   503 `storage_unavailable`; `SQLITE_IOERR` is a fault only when its errno is known (a cause, or `dir`);
 * - PostgreSQL out of reach is `database_unavailable`, 503 `service_unavailable` with `Retry-After: 1`: the
 *   socket refused or reset, the connection ended or not had within the pool's timeout, the server shutting
 *   down, crashed or not accepting connections yet (57P01, 57P02, 57P03), too many connections (53300), a
 *   connection exception (08xxx), or a read-only transaction (25006: a standby, during a failover).
 */
export function toDatabaseFault(error: unknown, options: DatabaseFaultOptions = {}): StorageFaultError | null {
  return faultOf(error, options, 0);
}

function faultOf(error: unknown, options: DatabaseFaultOptions, depth: number): StorageFaultError | null {
  if (error instanceof StorageFaultError) return error;
  if (typeof error !== "object" || error === null || depth > 8) return null;
  const e = error as EngineError;
  const sqlite = sqliteCodeOf(error);
  if (sqlite) return Object.hasOwn(SQLITE_REASONS, sqlite) ? toSqliteFault(sqlite, e, options) : null;
  const code = typeof e.code === "string" ? e.code : "";
  const reason = code ? reasonOfCode(code) : null;
  if (reason) return new StorageFaultError(reason, code);
  // Node answers a host name with several addresses, all refused, as one AggregateError of their errors.
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const fault = faultOf(inner, options, depth + 1);
      if (fault) return fault;
    }
  }
  if (error instanceof Error) {
    for (const [pattern, name] of UNREACHABLE_MESSAGES) if (pattern.test(error.message)) return new StorageFaultError("database_unavailable", name);
  }
  return faultOf(e.cause, options, depth + 1);
}

function toSqliteFault(code: string, error: EngineError, options: DatabaseFaultOptions): StorageFaultError | null {
  const errno = errnoOf(error.cause) ?? (options.dir === undefined ? null : errnoOfDisk(options.dir));
  if (errno) return new StorageFaultError(ERRNO_REASONS[errno]!, errno);
  const reason = SQLITE_REASONS[code];
  return reason ? new StorageFaultError(reason, code) : null;
}

/** The errno of a fault in an error's cause chain (`ENOSPC`...), or null. */
function errnoOf(error: unknown): string | null {
  for (let e = error as EngineError | undefined, depth = 0; e && depth < 8; e = e.cause as EngineError | undefined, depth++) {
    if (typeof e.code === "string" && Object.hasOwn(ERRNO_REASONS, e.code)) return e.code;
  }
  return null;
}

/** Writes one byte beside the database: the errno the file system answers when it refuses, else null. */
function errnoOfDisk(dir: string): string | null {
  const probe = join(dir, ".lp-write-probe");
  try {
    writeFileSync(probe, "x", { mode: 0o600 });
    rmSync(probe, { force: true });
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && Object.hasOwn(ERRNO_REASONS, code) ? code : null;
  }
}

/** What a PostgreSQL SQLSTATE or a Node errno means, or null. */
function reasonOfCode(code: string): StorageFaultReason | null {
  // Class 53, insufficient resources; too many connections is a busy server, and clears as the others leave.
  if (code === "53300") return "database_unavailable";
  if (code.startsWith("53")) return "disk_full";
  // Class 08, connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now.
  if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03") return "database_unavailable";
  // A read-only transaction where a write was sent: the server is a standby (a failover under way).
  if (code === "25006") return "database_unavailable";
  if (Object.hasOwn(ERRNO_REASONS, code)) return ERRNO_REASONS[code]!;
  return UNREACHABLE_ERRNOS.has(code) ? "database_unavailable" : null;
}

// SQLite's primary code for a lock another connection holds; PostgreSQL's serialization failure and deadlock.
const SQLITE_BUSY = "SQLITE_BUSY";
const PG_CONFLICTS = new Set(["40001", "40P01"]);

/**
 * Whether `error` is a transaction that lost to a concurrent one and can be run again as it is: SQLite busy
 * (another connection writes; in WAL, `SQLITE_BUSY_SNAPSHOT` when a transaction that read would write after
 * another's commit), PostgreSQL's serialization failure (40001) and deadlock (40P01). The transaction was
 * rolled back; run the whole of it again, not the statement.
 */
export function isRetryableConflict(error: unknown): boolean {
  for (let e = error as EngineError | null | undefined, depth = 0; e && typeof e === "object" && depth < 8; e = e.cause as EngineError | undefined, depth++) {
    if (sqliteCodeOf(e) === SQLITE_BUSY) return true;
    if (typeof e.code === "string" && PG_CONFLICTS.has(e.code)) return true;
  }
  return false;
}
