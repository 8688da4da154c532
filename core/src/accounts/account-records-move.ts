import type { Storage } from "unstorage";
import { toTimestamp, type Clock } from "../deps.js";
import type { Database } from "../db/database.js";
import { toFormat3Rows } from "../db/format-2-rows.js";
import type { CatalogTable, TableRows } from "../db/table-catalog.js";
import { writeTableRows } from "../db/table-copy.js";
import { skipUnreadable } from "../storage/record-check.js";

/** The setting that says a data dir's account records are in the tables (when it was done). */
const MOVED = "account_records_moved";

/** Keys of the key-value store the account plane kept its records under, before the tables. */
const PREFIXES = ["accounts", "tokens", "apps", "idem"] as const;

/** The secrets and credentials it kept under `meta:` keys, which become settings. */
const META_KEYS = ["meta:cursor_key", "meta:builder_key", "meta:admin_key", "meta:dev_credentials"] as const;

/** The tables the account plane's records become rows of (settings apart: written only where none is there). */
const ACCOUNT_TABLES: readonly CatalogTable[] = ["accounts", "tokens", "applications", "application_accounts", "idempotency_keys"];

/**
 * Moves the account plane of a data dir written before the tables (accounts, tokens, applications,
 * Idempotency-Key records and the `meta:` secrets and credentials, in the key-value store) into the tables,
 * once: in one transaction with the setting that says it is done, so the dev token a user saved, the admin key,
 * list cursors, builder links and stored answers work as before the upgrade. The records become rows as a
 * format-2 migration makes them (`db/format-2-rows.ts`): records naming an account that is not there (an
 * older import could leave them) are left behind, as no reader could reach them. The key-value copies stay
 * where they are, unread. Answers how many rows it wrote (the settings apart).
 */
export async function moveAccountRecords(storage: Storage, database: Database, clock: Clock): Promise<number> {
  if (await database.db.selectFrom("settings").select("name").where("name", "=", MOVED).executeTakeFirst()) return 0;
  const records: Array<[string, unknown]> = [];
  for (const prefix of PREFIXES) {
    for (const key of await storage.getKeys(prefix)) {
      if (!key.startsWith(`${prefix}:`)) continue;
      const value = await skipUnreadable(storage.getItem(key));
      if (value !== null && typeof value === "object") records.push([key, value]);
    }
  }
  for (const key of META_KEYS) {
    const value = await skipUnreadable(storage.getItem(key));
    if (value !== null) records.push([key, value]);
  }
  const at = toTimestamp(clock.now());
  const made = toFormat3Rows(records, { now: at });
  const rows: TableRows = Object.fromEntries(ACCOUNT_TABLES.map((table) => [table, made.rows[table] ?? []]));
  const settings = [...(made.rows.settings ?? []), { name: MOVED, value: at, created_at: at }] as Array<{ name: string; value: string; created_at: string }>;
  return database.transaction(async (tx) => {
    for (const setting of settings) await tx.insertInto("settings").values(setting).onConflict((oc) => oc.column("name").doNothing()).execute();
    const written = await writeTableRows(tx, rows);
    return Object.values(written).reduce((sum, n) => sum + n, 0);
  });
}
