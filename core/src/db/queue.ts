import { sql } from "kysely";
import type { Dialect, Queries } from "./database.js";

/**
 * A table of due work (generation jobs, deployments, webhook deliveries): its name and key column. Every such
 * table has three more columns: `due_at` (when the work is next due; null when there is nothing to do),
 * `lease_owner` and `lease_expires_at` (who is doing it, and until when their claim holds). A process that
 * dies holding a lease loses it when it lapses, and another takes the work over.
 */
export interface QueueTable {
  table: string;
  key: string;
}

/**
 * Whether a previous run may have left work in `tables` (queue tables, and any other whose rows a start recovers):
 * on SQLite, where the database is this process's alone, not when none of them holds a row (a new database), so
 * a start that would find nothing to settle or take skips looking (one statement instead of one or more per
 * table). On PostgreSQL other processes write the same tables at any time: always.
 */
export async function mayHoldLeftWork(q: Queries, dialect: Dialect, tables: readonly string[]): Promise<boolean> {
  if (dialect !== "sqlite" || tables.length === 0) return true;
  const exists = sql.join(tables.map((table) => sql`exists (select 1 from ${sql.table(table)})`), sql` or `);
  const { rows } = await sql<{ held: number }>`select ${exists} as held`.execute(q);
  return Number(rows[0]?.held ?? 1) !== 0;
}

/** What a claim asks for. */
export interface ClaimOptions {
  /** The time, as ISO text, by the core's clock. */
  now: string;
  /** Who claims (a process's id). */
  owner: string;
  /** When the claim lapses unless renewed. */
  leaseUntil: string;
  /** At most this many rows. */
  limit: number;
}

/**
 * Claims up to `limit` rows that are due and not held (their lease free or lapsed), earliest first, and
 * answers their keys. One `UPDATE ... RETURNING`; on PostgreSQL its rows are chosen `FOR UPDATE SKIP LOCKED`,
 * so processes claiming at once take different rows and never wait on each other.
 */
export async function claimDue(q: Queries, dialect: Dialect, target: QueueTable, options: ClaimOptions): Promise<string[]> {
  const table = sql.table(target.table);
  const key = sql.ref(target.key);
  const skipLocked = dialect === "postgres" ? sql` for update skip locked` : sql``;
  const { rows } = await sql<{ key: string }>`
    update ${table} set lease_owner = ${options.owner}, lease_expires_at = ${options.leaseUntil}
    where ${key} in (
      select ${key} from ${table}
      where due_at is not null and due_at <= ${options.now} and (lease_expires_at is null or lease_expires_at <= ${options.now})
      order by due_at, ${key}
      limit ${options.limit}${skipLocked}
    )
    returning ${key} as key`.execute(q);
  return rows.map((row) => row.key);
}

/** Extends a claim this owner still holds; false when it lapsed and another took it (stop working on it). */
export async function renewLease(q: Queries, target: QueueTable, key: string, owner: string, leaseUntil: string): Promise<boolean> {
  const result = await sql`
    update ${sql.table(target.table)} set lease_expires_at = ${leaseUntil}
    where ${sql.ref(target.key)} = ${key} and lease_owner = ${owner}`.execute(q);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/**
 * Ends this owner's claim and sets when the work is next due (null: done). False when the claim was no longer
 * this owner's: nothing is changed, and what the owner did meanwhile must not be recorded.
 */
export async function finishClaim(q: Queries, target: QueueTable, key: string, owner: string, next: { due_at: string | null }): Promise<boolean> {
  const result = await sql`
    update ${sql.table(target.table)} set lease_owner = null, lease_expires_at = null, due_at = ${next.due_at}
    where ${sql.ref(target.key)} = ${key} and lease_owner = ${owner}`.execute(q);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** The earliest time a claim of `target` could take something: a free row's due time, or a held row's lapse. */
export async function nextDueAt(q: Queries, target: QueueTable): Promise<string | null> {
  const { rows } = await sql<{ at: string | null }>`
    select min(case when lease_expires_at is null or lease_expires_at < due_at then due_at else lease_expires_at end) as at
    from ${sql.table(target.table)} where due_at is not null`.execute(q);
  return rows[0]?.at ?? null;
}
