import { sql } from "kysely";
import type { Database, Tx } from "../db/database.js";
import { finishClaim, type QueueTable } from "../db/queue.js";
import { isUnreadableRow } from "../db/unreadable-rows.js";
import { LeaseLost } from "../db/worker.js";

/** The `worker_terminated` message of work whose run stopped before it finished, naming the step it was at. */
export function toInterruptedMessage(what: "job" | "deployment", step: string | null): string {
  return `The server stopped while the ${what} was at step ${step ?? "unknown"}.`;
}

/**
 * Whether a run of this work began (a step was recorded): a row claimed again in that state was left by a
 * run that stopped, and is settled as interrupted rather than started over.
 */
export function isStarted(work: { step_times: Record<string, unknown> }): boolean {
  return Object.keys(work.step_times).length > 0;
}

/** True when a failure only says the claim is no longer this process's: its work is someone else's now, not a fault. */
export function isLeaseLost(error: unknown): boolean {
  return error instanceof LeaseLost;
}

/**
 * What settling one row found: `settled` when the work is over (it was already, or it was just ended as
 * interrupted), false when no run of it began and it is to be run; `after` runs once the change committed
 * (removing files the interrupted run left).
 */
export interface Takeover {
  settled: boolean;
  after?: () => Promise<void>;
}

/**
 * Takes over, as a core opens, the rows of `table` a stopped process left claimed. On SQLite the database
 * is one process's alone (its data dir is locked), so every lease held at this moment was a stopped
 * process's: each row is settled by `settle` in one transaction with its claim ended (not due any more), or,
 * when no run of it began, its claim is ended and it stays due for this process's worker. On PostgreSQL,
 * which processes share, nothing is done here: a stopped process's leases lapse and a worker takes the rows
 * then, settling them the same way. A row `settle` cannot read (`UnreadableRowError`, named in the log once)
 * has its claim ended and is left not due, as the worker leaves one: a damaged row never stops a start.
 */
export async function takeOverAtStart(database: Database, table: QueueTable, settle: (tx: Tx, key: string) => Promise<Takeover>): Promise<number> {
  if (database.dialect !== "sqlite") return 0;
  const { rows } = await sql<{ key: string; owner: string; due_at: string | null }>`
    select ${sql.ref(table.key)} as key, lease_owner as owner, due_at from ${sql.table(table.table)}
    where lease_owner is not null`.execute(database.db);
  let settled = 0;
  for (const row of rows) {
    const outcome = await database
      .transaction(async (tx) => {
        const found = await settle(tx, row.key);
        await finishClaim(tx, table, row.key, row.owner, { due_at: found.settled ? null : row.due_at });
        return found;
      })
      .catch(async (error: unknown): Promise<Takeover> => {
        if (!isUnreadableRow(error)) throw error;
        await finishClaim(database.db, table, row.key, row.owner, { due_at: null });
        return { settled: false };
      });
    if (outcome.settled) settled++;
    await outcome.after?.();
  }
  return settled;
}
