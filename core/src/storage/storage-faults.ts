import { LpError } from "../errors.js";

/**
 * Why the storage refuses writes: what `details.reason` of a 507 or 503 names. `database_unavailable` is the
 * PostgreSQL server unreachable, shutting down or read-only (a standby): it refuses reads too.
 */
export type StorageFaultReason = "disk_full" | "read_only" | "permission_denied" | "database_unavailable";

/**
 * The answer of each reason: 507 for "no room" (it clears when room is made), 503 for the others; an unreachable
 * database is `service_unavailable` with `Retry-After: 1`, as a restart or a failover takes seconds. `refuses`
 * names what the log lines count (writes, unless the fault refuses every request).
 */
const FAULTS: Record<
  StorageFaultReason,
  { code: "insufficient_storage" | "storage_unavailable" | "service_unavailable"; retryAfter: number; says: string; until: string; refuses?: "request"; message?: string }
> = {
  disk_full: { code: "insufficient_storage", retryAfter: 30, says: "disk full", until: "until there is room" },
  read_only: { code: "storage_unavailable", retryAfter: 30, says: "file system read-only", until: "until it is writable again" },
  permission_denied: { code: "storage_unavailable", retryAfter: 30, says: "permission denied", until: "until lp may write there again" },
  database_unavailable: {
    code: "service_unavailable",
    retryAfter: 1,
    says: "database unreachable",
    until: "until it answers again",
    refuses: "request",
    message: "The database is unreachable right now; retry in a moment.",
  },
};

/** What the log lines of a fault count: "write" or "request". */
const refusedOf = (reason: StorageFaultReason) => FAULTS[reason].refuses ?? "write";

/**
 * A write the storage cannot take now (a full disk, a read-only or forbidden data dir, the database out of reach).
 * Reads go on; the server answers 507 `insufficient_storage` or 503 `storage_unavailable` with
 * `details.reason` and `Retry-After`, and never logs a stack trace for it. The database unreachable
 * (`database_unavailable`) refuses reads as well, and answers 503 `service_unavailable`.
 */
export class StorageFaultError extends LpError {
  readonly reason: StorageFaultReason;
  /** The system's own name for it (`ENOSPC`, `EROFS`, `OOM`, `SQLITE_FULL`, `57P01`...), for the log line. */
  readonly sysCode: string;

  constructor(reason: StorageFaultReason, sysCode: string) {
    const fault = FAULTS[reason];
    super(fault.code, fault.message ?? `The storage refuses writes (${fault.says}); reads still work. Retry later.`, { reason, retry_after_seconds: fault.retryAfter });
    this.name = "StorageFaultError";
    this.reason = reason;
    this.sysCode = sysCode;
  }
}

/**
 * The fault an error from a storage write means, or null when it is not one (a bug, an outage). File system
 * codes come from Node (`ENOSPC`, `EDQUOT`, `EROFS`, `EACCES`, `EPERM`), also as an error's `cause`;
 * the database's own codes are read by `db/faults.ts`.
 */
export function toStorageFault(error: unknown): StorageFaultError | null {
  if (error instanceof StorageFaultError) return error;
  if (!(error instanceof Error)) return null;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOSPC" || code === "EDQUOT") return new StorageFaultError("disk_full", code);
  if (code === "EROFS") return new StorageFaultError("read_only", code);
  if (code === "EACCES" || code === "EPERM") return new StorageFaultError("permission_denied", code);
  const cause = (error as { cause?: unknown }).cause;
  return cause && cause !== error ? toStorageFault(cause) : null;
}

/** What `/healthz` reports while writes are refused. */
export interface StorageFaultState {
  reason: StorageFaultReason;
  /** ISO time of the first refusal of this fault. */
  since: string;
  /** Writes refused since then. */
  refused: number;
}

/** Options of {@link createStorageHealth}. */
export interface StorageHealthOptions {
  /** The data dir, or the database's address: named in every line. */
  where: string;
  log?: (line: string) => void;
  now?: () => Date;
  /** Starts a repeating timer; returns its stop. Injected so tests drive the minute by hand. */
  every?: (ms: number, run: () => void) => () => void;
  /** Tries one small write; resolves when the storage takes writes again. Run every `probeMs` while faulty. */
  probe?: () => Promise<void>;
  probeMs?: number;
}

const realEvery = (ms: number, run: () => void) => {
  const timer = setInterval(run, ms);
  timer.unref?.();
  return () => clearInterval(timer);
};

/**
 * Watches storage writes: one log line when a fault starts (`storage: disk full at /data (ENOSPC); writes
 * refused until there is room`), a count once a minute while it lasts, one line when a write succeeds
 * again. While it lasts a small probe write runs every few seconds, so the fault ends by itself once room
 * is made even when no client writes.
 */
export function createStorageHealth(options: StorageHealthOptions) {
  const log = options.log ?? ((line: string) => console.error(line));
  const now = options.now ?? (() => new Date());
  const every = options.every ?? realEvery;
  let fault: (StorageFaultState & { sysCode: string; lastMinute: number }) | null = null;
  let stopTimers: Array<() => void> = [];
  let probing = false;
  const recovered: Array<() => void> = [];

  const minute = () => {
    if (!fault || fault.lastMinute === 0) return;
    log(`storage: ${fault.lastMinute} ${refusedOf(fault.reason)}(s) refused in the last minute (${FAULTS[fault.reason].says} at ${options.where})`);
    fault.lastMinute = 0;
  };
  const probe = async (): Promise<void> => {
    if (!options.probe || probing || !fault) return;
    probing = true;
    try {
      await options.probe();
      health.succeeded();
    } catch {
      // Still refused: the fault goes on, and the minute's count says so.
    } finally {
      probing = false;
    }
  };

  const health = {
    /** Notes a refused write; the first of a fault logs its line and starts the timers. */
    refused(error: StorageFaultError): void {
      if (fault && fault.reason === error.reason) {
        fault.refused++;
        fault.lastMinute++;
        return;
      }
      if (fault) health.succeeded();
      const says = FAULTS[error.reason];
      fault = { reason: error.reason, since: now().toISOString(), refused: 1, lastMinute: 1, sysCode: error.sysCode };
      log(`storage: ${says.says} at ${options.where} (${error.sysCode}); ${refusedOf(error.reason)}s refused ${says.until}`);
      stopTimers = [every(60_000, minute)];
      if (options.probe) stopTimers.push(every(options.probeMs ?? 5_000, () => void probe()));
    },
    /** Notes a write that went through: ends a fault under way. */
    succeeded(): void {
      if (!fault) return;
      const ended = fault;
      fault = null;
      for (const stop of stopTimers) stop();
      stopTimers = [];
      const seconds = Math.round((now().getTime() - Date.parse(ended.since)) / 1000);
      log(`storage: ${refusedOf(ended.reason)}s accepted again at ${options.where} (${FAULTS[ended.reason].says} is over; ${ended.refused} refused in ${seconds} s)`);
      for (const listener of recovered) listener();
    },
    /**
     * Calls `listener` each time a fault ends: background work the storage refused (a webhook fan-out) is
     * taken up again then, with no client write or restart needed.
     */
    onRecovered(listener: () => void): void {
      recovered.push(listener);
    },
    /** The fault under way, or null when writes go through. */
    state(): StorageFaultState | null {
      return fault && { reason: fault.reason, since: fault.since, refused: fault.refused };
    },
    /** Runs the minute's count now (tests). */
    tick: minute,
    /** Tries the probe write now (what the timer does every few seconds while a fault lasts). */
    probe,
    /** Stops the timers (on close). */
    stop(): void {
      for (const stop of stopTimers) stop();
      stopTimers = [];
    },
  };
  return health;
}

/** A {@link createStorageHealth}. */
export type StorageHealth = ReturnType<typeof createStorageHealth>;
