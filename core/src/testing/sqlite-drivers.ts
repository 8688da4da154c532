import { join } from "node:path";
import { DATABASE_FILE, openDatabase, readStatements } from "../storage/sqlite-database.js";
import { sqliteMediaDriver, sqliteRecordsDriver } from "../storage/sqlite-driver.js";
import { SqliteWriter } from "../storage/sqlite-writer.js";

/**
 * The records and media drivers over a database in `dir`, opened as `createSqliteStores` opens them, for the
 * driver contract and the storage path tests; `close` ends its writer and connection.
 */
export function openSqliteDrivers(dir: string) {
  const file = join(dir, DATABASE_FILE);
  const db = openDatabase(file);
  const reads = readStatements(db);
  const writer = new SqliteWriter({ file, dir });
  return {
    records: sqliteRecordsDriver(reads, writer),
    media: sqliteMediaDriver(reads, writer),
    async close() {
      await writer.close();
      db.close();
    },
  };
}
