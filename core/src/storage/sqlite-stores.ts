import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DIR_MODE, readTextOrNull, writeFileDurably } from "./data-dir-files.js";
import { toStorage, type OrderedCollections, type Stores } from "./create-storage.js";
import { DATABASE_FILE, openDatabase, readStatements } from "./sqlite-database.js";
import { productTables } from "./sqlite-products.js";
import { prepareArrays, type SqliteDatabase } from "./sqlite.js";
import { batchOps, sqliteMediaDriver, sqliteRecordsDriver } from "./sqlite-driver.js";
import { parentOf, toStoredText as toText } from "./keys.js";
import { SqliteWriter, type WriteOp } from "./sqlite-writer.js";
import { migrateLegacyDataDir } from "../migration/format-1-migration.js";

/**
 * The collections of a database, newest first, for list indexes: `created_at` is indexed per collection
 * (`records_by_created`), so each block is one index range read, and a restart needs no snapshot.
 */
function orderedCollections(db: SqliteDatabase): OrderedCollections {
  const first = prepareArrays<[string, number], [string, string, string]>(db, "SELECT key, value, created_at FROM records WHERE parent = ? AND created_at IS NOT NULL ORDER BY created_at DESC, key DESC LIMIT ?");
  const after = prepareArrays<[string, string, string, number], [string, string, string]>(
    db,
    "SELECT key, value, created_at FROM records WHERE parent = ? AND created_at IS NOT NULL AND (created_at, key) < (?, ?) ORDER BY created_at DESC, key DESC LIMIT ?",
  );
  const undated = prepareArrays<[string], [string, string]>(db, "SELECT key, value FROM records WHERE parent = ? AND created_at IS NULL");
  return {
    newest: (prefix, before, limit) => (before ? after.all(prefix, before[0], before[1], limit) : first.all(prefix, limit)),
    undated: (prefix) => undated.all(prefix),
  };
}

/** Options of {@link createSqliteStores}. */
export interface SqliteStoreOptions {
  /** Where the migration of a format-1 dir reports; default stderr. */
  log?: (line: string) => void;
  /** Names this lp in the format marker a migration writes. */
  writtenBy?: string;
}

/**
 * The embedded store of `lp serve` (format 2): one SQLite database, `<dataDir>/lp.db`, in WAL mode, holding
 * records and media. Reads are synchronous on the main thread; every write goes through one writer thread
 * that commits concurrent changes together (`sqlite-writer.ts`); a {@link Stores.batch} is one transaction.
 * A data dir in the format-1 layout (a file per record) is migrated first (`format-1-migration.ts`).
 */
export function createSqliteStores(dataDir: string, options: SqliteStoreOptions = {}): Stores {
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  migrateLegacyDataDir(dataDir, { log: options.log ?? ((line) => console.error(line)), writtenBy: options.writtenBy });
  const file = join(dataDir, DATABASE_FILE);
  const db = openDatabase(file);
  const reads = readStatements(db);
  const writer = new SqliteWriter({ file, dir: dataDir });
  const write = (ops: WriteOp[]) => writer.write(ops);
  const formatFile = join(dataDir, "format.json");
  let open = true;
  return {
    kind: "sqlite",
    data: toStorage(sqliteRecordsDriver(reads, writer)),
    media: toStorage(sqliteMediaDriver(reads, writer)),
    where: dataDir,
    describeKey: (key) => `${file}, key ${key}`,
    format: {
      where: formatFile,
      read: async () => readTextOrNull(formatFile),
      write: async (text) => writeFileDurably(formatFile, text),
    },
    batch: (ops) => {
      try {
        return write(batchOps(ops));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    replace: (records, files) => {
      const ops: WriteOp[] = [["wipe"]];
      for (const [key, value] of Object.entries(records)) ops.push(["put", key, parentOf(key), toText(value)]);
      for (const [key, base64] of Object.entries(files)) ops.push(["media", key, Buffer.from(base64, "base64")]);
      return write(ops);
    },
    ordered: orderedCollections(db),
    products: productTables(db),
    async dispose() {
      if (!open) return;
      open = false;
      await writer.close();
      db.close();
    },
  };
}
