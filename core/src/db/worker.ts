import PQueue from "p-queue";
import { toTimestamp, type Clock } from "../deps.js";
import type { Scheduler, TimerHandle } from "../webhooks/scheduler.js";
import type { Database } from "./database.js";
import { claimDue, finishClaim, nextDueAt, renewLease, type ClaimOptions, type QueueTable } from "./queue.js";
import { isUnreadableRow } from "./unreadable-rows.js";

/** How long a claim holds unless renewed: a killed process's work is taken over within this time. */
export const DEFAULT_LEASE_MS = 30_000;
/** Runs at once by default. */
export const DEFAULT_CONCURRENCY = 8;

// After a claim fails (the database unreachable), the first retry waits this long, and each next one twice
// as long up to the most: an outage costs a few queries a minute, and work resumes within seconds of its end.
const RETRY_FIRST_MS = 100;
const RETRY_MOST_MS = 10_000;
// Work that is due but that the claim would not take (a custom claim's own rule, such as an endpoint's
// concurrency held by another process) is looked at again after this long, doubling up to the lease: without
// it, a timer at a time already past would spin.
const BLOCKED_FIRST_MS = 1_000;

/** What a run answers when it ended its claim itself ({@link WorkerOptions.run}): the worker finishes nothing. */
export const CLAIM_ENDED = "claim ended";

/** Thrown, and the reason of {@link Lease.signal}, once a run's claim is no longer this process's. */
export class LeaseLost extends Error {
  constructor(readonly key: string) {
    super(`the claim of ${key} is no longer held: another process may be doing its work`);
  }
}

/** What a run is given about its claim. */
export interface Lease {
  readonly key: string;
  /**
   * Aborted (reason: {@link LeaseLost}) when a renewal finds the claim taken by another process, or when
   * renewals failed until the claim could lapse before the next one. The run stops before its next write.
   */
  readonly signal: AbortSignal;
  /** Throws {@link LeaseLost} once {@link signal} is aborted: called before each write the run makes. */
  assertHeld(): void;
}

/**
 * Claims up to `options.limit` due rows of `table` for `options.owner` and answers their keys. The default
 * is {@link claimDue}; an area whose work has its own rule (webhook deliveries: a concurrency per endpoint)
 * brings its own query.
 */
export type ClaimFunction = (database: Database, table: QueueTable, options: ClaimOptions) => Promise<string[]>;

/**
 * When a claim of `table` could next take something, as ISO text (`now` or earlier when something is claimable
 * already; null when nothing is due). The default is the queue's {@link nextDueAt}; an area with its own
 * {@link ClaimFunction} brings the look that knows its rule, so a row its claim refuses is not taken for due.
 */
export type NextDueFunction = (database: Database, table: QueueTable, now: string) => Promise<string | null>;

/** Options of {@link createWorker}. */
export interface WorkerOptions {
  database: Database;
  table: QueueTable;
  /** This process's id, written as `lease_owner` of what it claims. */
  owner: string;
  clock: Clock;
  /** Every timer (the next due time, renewals, retries) goes through it, so a manual clock drives them all. */
  scheduler: Scheduler;
  /** How long a claim holds unless renewed (default 30 s); renewed every third of it while the run lasts. */
  leaseMs?: number;
  /** Runs at once (default 8). */
  concurrency?: number;
  claim?: ClaimFunction;
  /** The look after a batch for the next due time (default: the queue's, by due times and leases alone). */
  nextDueAt?: NextDueFunction;
  /**
   * Does the work of row `key`, and answers when it is next due (null: done), or {@link CLAIM_ENDED} when it
   * ended the claim itself, in the transaction that recorded its work (a change another writer makes after
   * that transaction, such as a row made due again, is then never overwritten by a finish). A run that throws
   * is treated as a process that died: its claim is left to lapse, and the row is taken again, by any process, after it.
   * A run that throws `UnreadableRowError` met a damaged row it cannot work on: the claim is finished with the
   * row no longer due (its other columns as they were), and nothing is reported (the read named the row once),
   * so a damaged row costs one run, never a loop.
   */
  run: (key: string, lease: Lease) => Promise<{ due_at: string | null } | typeof CLAIM_ENDED>;
  /**
   * Reports a failure: of a run (`key`), of its renewal or finish, or of a claim (`key` null; retried with a
   * back-off). Never thrown out of the worker.
   */
  onError: (key: string | null, error: unknown) => void;
}

/** Takes the due rows of one table and runs them, as long as it is open. */
export interface Worker {
  /** Claims now: called after committing a row that is due (or a change that lets one be claimed). */
  wake(): void;
  /**
   * Resolves when no run is in flight and no claim is under way: what the last claim found due is done, and
   * whatever is left is due later, held by another process, or refused by the claim. During an outage of the
   * database it resolves between retries.
   */
  onIdle(): Promise<void>;
  /** Runs in flight, plus one while a claim is under way. */
  readonly pending: number;
  /** Keys of the rows being run. */
  names(): string[];
  /** Stops claiming and its timer, and resolves once the runs in flight (renewed meanwhile) have finished. */
  close(): Promise<void>;
}

interface Running {
  readonly controller: AbortController;
  /** When the claim lapses, by this process's last successful renewal. */
  heldUntil: number;
  timer: TimerHandle | null;
  renewing: Promise<void> | null;
  done: boolean;
}

/**
 * Creates a worker over `table`: it claims what is due up to its free concurrency, runs each row, and
 * finishes the claim with the next due time the run answers. After each batch it asks the table when a claim
 * could next take something (a row's due time, or a held row's lapse) and sets one timer for then, so work
 * written for later, and work left by a process that died, is taken on time without polling.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { database, table, owner, clock, scheduler, run, onError } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const renewEveryMs = Math.max(1, Math.floor(leaseMs / 3));
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const claim: ClaimFunction = options.claim ?? ((db, target, claimOptions) => claimDue(db.db, db.dialect, target, claimOptions));
  const lookAhead: NextDueFunction = options.nextDueAt ?? ((db, target) => nextDueAt(db.db, target));
  const queue = new PQueue({ concurrency });
  const running = new Map<string, Running>();
  const idleWaiters: Array<() => void> = [];
  let timer: TimerHandle | null = null;
  let claiming: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let failures = 0;
  let blocked = 0;

  const iso = (ms: number) => toTimestamp(new Date(ms));
  const isIdle = () => running.size === 0 && claiming === null;
  const settleIdle = () => {
    if (isIdle()) for (const resolve of idleWaiters.splice(0)) resolve();
  };
  const arm = (ms: number) => {
    timer?.cancel();
    timer = closed
      ? null
      : scheduler.setTimeout(() => {
          timer = null;
          pump();
        }, Math.max(0, ms));
  };

  /** Starts a batch, or asks the one under way for another: one claim at a time per worker. */
  function pump(): void {
    if (closed) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = batches().finally(() => {
      claiming = null;
      settleIdle();
    });
  }

  async function batches(): Promise<void> {
    do {
      again = false;
      timer?.cancel();
      timer = null;
      try {
        const free = concurrency - running.size;
        let taken = 0;
        if (free > 0) {
          const now = clock.now().getTime();
          const keys = await claim(database, table, { now: iso(now), owner, leaseUntil: iso(now + leaseMs), limit: free });
          for (const key of keys) if (start(key, now + leaseMs)) taken++;
        }
        failures = 0;
        if (taken > 0) blocked = 0;
        // Closing, or every slot taken: a finish claims what is next.
        if (closed || free - taken <= 0) continue;
        const next = await lookAhead(database, table, iso(clock.now().getTime()));
        const at = next === null ? null : Date.parse(next);
        const now = clock.now().getTime();
        if (at === null) blocked = 0;
        else if (at > now) {
          blocked = 0;
          arm(at - now);
        }
        // Due now, not taken: it came due between the claim and the look (look once more at once), or the
        // claim refuses it (look again later, less and less often). While this process runs others (an
        // endpoint's concurrency_limit reached by its own attempts), each finish claims again anyway: no look
        // at once then, which under a backlog doubled the claims per run.
        else if (blocked++ === 0 && running.size === 0) again = true;
        else arm(Math.min(BLOCKED_FIRST_MS * 2 ** (blocked - 2), leaseMs));
      } catch (error) {
        onError(null, error);
        failures++;
        arm(Math.min(RETRY_FIRST_MS * 2 ** (failures - 1), RETRY_MOST_MS));
        return;
      }
    } while (again && !closed);
  }

  /** Runs a claimed row; false when this process is still running it (it took back its own lapsed claim). */
  function start(key: string, heldUntil: number): boolean {
    // The earlier run keeps going under the claim just renewed, or, its signal aborted, stops without
    // finishing; then the claim lapses and the row is taken again.
    if (running.has(key)) return false;
    const state: Running = { controller: new AbortController(), heldUntil, timer: null, renewing: null, done: false };
    running.set(key, state);
    void queue
      .add(() => execute(key, state))
      .finally(() => {
        running.delete(key);
        pump();
        settleIdle();
      });
    return true;
  }

  async function execute(key: string, state: Running): Promise<void> {
    const { signal } = state.controller;
    const lease: Lease = {
      key,
      signal,
      assertHeld() {
        if (signal.aborted) throw signal.reason;
      },
    };
    try {
      let next: { due_at: string | null } | typeof CLAIM_ENDED;
      scheduleRenewal(key, state);
      try {
        next = await run(key, lease);
      } finally {
        state.done = true;
        state.timer?.cancel();
        await state.renewing;
      }
      if (signal.aborted) throw signal.reason;
      if (next !== CLAIM_ENDED && !(await finishClaim(database.db, table, key, owner, next))) throw new LeaseLost(key);
    } catch (error) {
      // Whatever the run threw after its claim was lost, the cause is the loss.
      if (!signal.aborted && isUnreadableRow(error)) await leaveUnreadable(key);
      else onError(key, signal.aborted ? signal.reason : error);
    }
  }

  /** Ends the claim of a row a run could not read, leaving it not due: it is run again only once made due again. */
  async function leaveUnreadable(key: string): Promise<void> {
    try {
      await finishClaim(database.db, table, key, owner, { due_at: null });
    } catch (error) {
      // Left to lapse instead: taken again after the lease, like the run of a process that died.
      onError(key, error);
    }
  }

  function scheduleRenewal(key: string, state: Running): void {
    state.timer = scheduler.setTimeout(() => {
      state.timer = null;
      state.renewing = renew(key, state).finally(() => {
        state.renewing = null;
        if (!state.done && !state.controller.signal.aborted) scheduleRenewal(key, state);
      });
    }, renewEveryMs);
  }

  async function renew(key: string, state: Running): Promise<void> {
    const now = clock.now().getTime();
    try {
      if (await renewLease(database.db, table, key, owner, iso(now + leaseMs))) state.heldUntil = now + leaseMs;
      else state.controller.abort(new LeaseLost(key));
    } catch (error) {
      onError(key, error);
      // The next renewal would come after the claim lapsed: another process may take the row by then.
      if (clock.now().getTime() + renewEveryMs >= state.heldUntil) state.controller.abort(new LeaseLost(key));
    }
  }

  // Another process's commit of due rows (PostgreSQL's NOTIFY): claim now, as after a commit here.
  database.wakeups.listen(table.table, () => {
    if (closed) return;
    blocked = 0;
    pump();
  });

  return {
    wake() {
      blocked = 0;
      database.wakeups.announce(table.table);
      pump();
    },
    onIdle: () => (isIdle() ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    get pending() {
      return running.size + (claiming ? 1 : 0);
    },
    names: () => [...running.keys()],
    async close() {
      closed = true;
      timer?.cancel();
      timer = null;
      await (isIdle() ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)));
    },
  };
}
