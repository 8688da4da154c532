import type { Storage } from "unstorage";
import { openSqlite, prepareArrays } from "../storage/sqlite.js";
import type { Database, Tx } from "./database.js";
import type { LeftOut } from "./format-2-row-build.js";
import { toFormat3Rows } from "./format-2-rows.js";
import { writeTableRows } from "./table-copy.js";

/** Records and media of format 2: a format-2 `lp.db`'s `records` and `media` tables, or an export document of version 1. */
export interface Format2Source {
  /** Each record's key and value (its JSON parsed; undefined for a text that is not JSON). */
  records: Iterable<readonly [string, unknown]>;
  /** Each media file's key (`products:{id}:{image}.png`) and bytes. */
  media: Iterable<readonly [string, Uint8Array]>;
}

/** Options of {@link importRecords}. */
export interface ImportRecordsOptions {
  /** Where media bytes go: the media blobs of the database (`media/media-blobs.ts`). */
  media: Storage;
  /** The import's time (ISO), which stamps the settings made from meta keys. */
  now: string;
  /**
   * Runs in the import's transaction before any row is written (an import that replaces the data empties
   * the tables here, so the old rows and the new never both show).
   */
  before?: (tx: Tx) => Promise<void>;
}

/** What {@link importRecords} wrote, and what it left out. */
export interface ImportRecordsResult {
  /** Rows written, by table. */
  tables: Record<string, number>;
  media: number;
  /** Records the tables did not take, each with why. */
  left: LeftOut[];
  /** Index, journal and meta records the tables do not need. */
  notNeeded: number;
}

/**
 * Writes every resource of a format-2 store into the format-3 tables of `database`, in one transaction:
 * the rows `toFormat3Rows` makes of the records (checked there against what the foreign keys and unique
 * indexes would refuse), written table by table, parents first. Media bytes go to the media blobs first,
 * before the rows that name them are committed: a kill in between leaves files no row names (`lp doctor`
 * finds them), never a row without its file. A refused write (the database's own constraints) rolls every
 * row back. Records it cannot take are left out and named in the result, never a reason to refuse the rest.
 */
export async function importRecords(database: Database, source: Format2Source, options: ImportRecordsOptions): Promise<ImportRecordsResult> {
  const made = toFormat3Rows(source.records, { now: options.now });
  let media = 0;
  for (const [key, bytes] of source.media) {
    if (made.isLeftMedia(key)) continue;
    await options.media.setItemRaw(key, bytes);
    media++;
  }
  const tables = await database.transaction(async (tx) => {
    await options.before?.(tx);
    return writeTableRows(tx, made.rows);
  });
  return { tables, media, left: made.left, notNeeded: made.notNeeded };
}

/**
 * The records and media of a format-2 `lp.db` (opened read-write, as SQLite needs to read its write-ahead
 * log; nothing is written). The records are read at once (an import needs them all to check what each
 * names); a record whose text is not JSON comes back with an undefined value, for the import to leave out
 * and name. The media are read one file at a time as they are iterated (each iteration opens the file
 * again), so a store of many images never sits in memory whole.
 */
export function readFormat2File(file: string): Format2Source {
  const db = openSqlite(file, { mustExist: true, busyTimeoutMs: 5000 });
  let records: Array<[string, unknown]>;
  try {
    records = prepareArrays<[], [string, string]>(db, "SELECT key, value FROM records ORDER BY key")
      .all()
      .map(([key, text]): [string, unknown] => [key, parseOrUndefined(text)]);
  } finally {
    db.close();
  }
  return { records, media: { [Symbol.iterator]: () => mediaOf(file) } };
}

function* mediaOf(file: string): Generator<readonly [string, Uint8Array]> {
  const db = openSqlite(file, { mustExist: true, busyTimeoutMs: 5000 });
  try {
    yield* prepareArrays<[], [string, Uint8Array]>(db, "SELECT key, bytes FROM media ORDER BY key").iterate();
  } finally {
    db.close();
  }
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
