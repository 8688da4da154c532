import { join } from "node:path";
import { TABLE_ORDER, tableSpec } from "../../core/src/db/table-catalog.js";
import { openSqlite, prepareArrays } from "../../core/src/storage/sqlite.js";

/** What a read of a data directory's database found. */
export interface ScanResult {
  /** Rows read, in every table. */
  files: number;
  /** What SQLite's own checks report (integrity, foreign keys), and JSON columns whose text does not parse. */
  corrupt: string[];
  /** Generation jobs stored `processing` with nothing due: left to no worker. */
  processing: string[];
  /** Deployments stored `deploying` with nothing due: left to no worker. */
  deploying: string[];
}

/**
 * Reads `{dataDir}/lp.db` through a read-only connection of its own (safe beside a running server): SQLite
 * commits a change whole or not at all, so a kill at any moment must leave a database that passes its own
 * integrity and foreign-key checks, with every JSON column whole. And no background work may be stranded: a
 * job still `processing` or a deployment still `deploying` is due (a worker takes it, or settles it as
 * interrupted), never left with no due time.
 */
export function scanDataDir(dataDir: string): ScanResult {
  const db = openSqlite(join(dataDir, "lp.db"), { readOnly: true });
  try {
    const result: ScanResult = { files: 0, corrupt: [], processing: [], deploying: [] };
    const integrity = prepareArrays<[], [string]>(db, "PRAGMA integrity_check").all().map(([line]) => line);
    if (integrity.join() !== "ok") result.corrupt.push(...integrity.map((line) => `integrity: ${line}`));
    for (const [table, rowid, parent] of prepareArrays<[], [string, number, string]>(db, "PRAGMA foreign_key_check").all()) result.corrupt.push(`foreign key: ${table} row ${rowid} names a missing ${parent}`);
    for (const table of TABLE_ORDER) {
      result.files += prepareArrays<[], [number]>(db, `SELECT count(*) FROM "${table}"`).get()![0];
      const json = Object.entries(tableSpec(table).columns as Record<string, string>).filter(([, kind]) => kind.startsWith("json")).map(([column]) => column);
      for (const column of json) {
        const torn = prepareArrays<[], [number]>(db, `SELECT count(*) FROM "${table}" WHERE "${column}" IS NOT NULL AND NOT json_valid("${column}")`).get()![0];
        if (torn > 0) result.corrupt.push(`${table}.${column}: ${torn} value(s) not JSON`);
      }
    }
    result.processing = prepareArrays<[], [string]>(db, "SELECT job_id FROM page_jobs WHERE status = 'processing' AND due_at IS NULL").all().map(([id]) => id);
    result.deploying = prepareArrays<[], [string]>(db, "SELECT id FROM deployments WHERE status = 'deploying' AND due_at IS NULL").all().map(([id]) => id);
    return result;
  } finally {
    db.close();
  }
}
