import pg from "pg";
import { TABLE_ORDER, tableSpec } from "../../core/src/db/table-catalog.js";
import { openSqlite, prepareArrays } from "../../core/src/storage/sqlite.js";

/** What a read of a store's database, below the servers, found. */
export interface ScanResult {
  /** Rows read, in every table. */
  rows: number;
  /** What the engine's own checks report (see {@link scanSqlite}, {@link scanPostgres}). */
  corrupt: string[];
  /** Generation jobs stored `processing` with nothing due: left to no worker. */
  processing: string[];
  /** Deployments stored `deploying` with nothing due: left to no worker. */
  deploying: string[];
  /** Jobs, deployments and deliveries claimed by a process (under way, or held by a killed one until its claim is taken over). */
  claimed: number;
}

/** Answers a query's rows as arrays of values; the part of a scan that is the same on both engines goes through it. */
type Query = (text: string) => Promise<unknown[][]>;

/**
 * What a scan checks on either engine: every table's rows are counted, and no background work is stranded (a job
 * still `processing` or a deployment still `deploying` is due: a worker takes it, or settles it as interrupted,
 * never left with no due time).
 */
async function scanRows(query: Query, corrupt: string[]): Promise<ScanResult> {
  let rows = 0;
  for (const table of TABLE_ORDER) rows += Number((await query(`SELECT count(*) FROM "${table}"`))[0][0]);
  const processing = (await query("SELECT job_id FROM page_jobs WHERE status = 'processing' AND due_at IS NULL")).map(([id]) => String(id));
  const deploying = (await query("SELECT id FROM deployments WHERE status = 'deploying' AND due_at IS NULL")).map(([id]) => String(id));
  let claimed = 0;
  for (const table of ["page_jobs", "deployments", "webhook_deliveries"]) claimed += Number((await query(`SELECT count(*) FROM ${table} WHERE lease_owner IS NOT NULL`))[0][0]);
  return { rows, corrupt, processing, deploying, claimed };
}

/**
 * Reads an SQLite database (a data dir's `lp.db`) through a read-only connection of its own (safe beside a running
 * server): SQLite commits a change whole or not at all, so a kill at any moment must leave a database that passes
 * its own integrity and foreign-key checks, with every JSON column (text on SQLite) parsing; then {@link scanRows}.
 */
export async function scanSqlite(file: string): Promise<ScanResult> {
  const db = openSqlite(file, { readOnly: true });
  try {
    const corrupt: string[] = [];
    const integrity = prepareArrays<[], [string]>(db, "PRAGMA integrity_check").all().map(([line]) => line);
    if (integrity.join() !== "ok") corrupt.push(...integrity.map((line) => `integrity: ${line}`));
    for (const [table, rowid, parent] of prepareArrays<[], [string, number, string]>(db, "PRAGMA foreign_key_check").all()) corrupt.push(`foreign key: ${table} row ${rowid} names a missing ${parent}`);
    for (const table of TABLE_ORDER) {
      const json = Object.entries(tableSpec(table).columns as Record<string, string>).filter(([, kind]) => kind.startsWith("json")).map(([column]) => column);
      for (const column of json) {
        const torn = prepareArrays<[], [number]>(db, `SELECT count(*) FROM "${table}" WHERE "${column}" IS NOT NULL AND NOT json_valid("${column}")`).get()![0];
        if (torn > 0) corrupt.push(`${table}.${column}: ${torn} value(s) not JSON`);
      }
    }
    return await scanRows(async (text) => prepareArrays<[], unknown[]>(db, text).all(), corrupt);
  } finally {
    db.close();
  }
}

/** The schema the scan's amcheck functions are installed in, apart from lp's own tables. */
const CHECK_SCHEMA = "lp_scan";

/**
 * Reads a PostgreSQL database on a connection of its own, beside the servers that use it. JSON validity and foreign
 * keys are the engine's: a `json` column refuses text that does not parse, and a foreign key is checked by every
 * statement, so no committed row can break them. What a kill could leave torn is the storage under the rows: every
 * B-tree index of lp's schema (its primary keys, unique constraints and indexes) goes through amcheck's
 * `bt_index_check` with `heapallindexed`, which verifies the index's structure and that every row of its table is
 * in it (it takes the same lock as a read: the servers keep serving). Then {@link scanRows}.
 */
export async function scanPostgres(url: string): Promise<ScanResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const query: Query = async (text) => (await client.query({ text, rowMode: "array" })).rows;
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${CHECK_SCHEMA}; CREATE EXTENSION IF NOT EXISTS amcheck SCHEMA ${CHECK_SCHEMA}`);
    const indexes = await query(`
      SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE a.amname = 'btree' AND n.nspname = current_schema() AND i.indisvalid ORDER BY c.relname`);
    const corrupt: string[] = [];
    for (const [name] of indexes) {
      try {
        await client.query(`SELECT ${CHECK_SCHEMA}.bt_index_check($1::regclass, true)`, [name]);
      } catch (error) {
        corrupt.push(`index ${String(name)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (indexes.length === 0) corrupt.push(`no B-tree index found in the schema ${url} serves: not an lp database`);
    return await scanRows(query, corrupt);
  } finally {
    await client.end();
  }
}
