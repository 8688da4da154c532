import type { Storage } from "unstorage";
import { toTimestamp, type Clock } from "../deps.js";
import type { Database } from "../db/database.js";
import { skipUnreadable } from "../storage/record-check.js";
import { insertAccountRecords } from "./account-transfer.js";
import type { AppRecord } from "./schemas.js";

/** The setting that says a data dir's account records are in the tables (when it was done). */
const MOVED = "account_records_moved";

/** Keys of the key-value store the account plane kept its records under, before the tables. */
const PREFIXES = ["accounts", "tokens", "apps", "idem"] as const;

/** The secrets and credentials it kept under `meta:` keys, and how each becomes a setting's text. */
const META: readonly { key: string; setting: string; value: (stored: any) => string | null }[] = [
  { key: "meta:cursor_key", setting: "cursor_key", value: (stored) => (typeof stored?.value === "string" ? stored.value : null) },
  { key: "meta:builder_key", setting: "builder_key", value: (stored) => (typeof stored?.value === "string" ? stored.value : null) },
  { key: "meta:admin_key", setting: "admin_key", value: (stored) => (typeof stored?.key === "string" && stored.key ? stored.key : null) },
  { key: "meta:dev_credentials", setting: "dev_credentials", value: (stored) => (stored && typeof stored.token === "string" ? JSON.stringify(stored) : null) },
];

/**
 * Moves the account plane of a data dir written before the tables (accounts, tokens, applications,
 * Idempotency-Key records and the `meta:` secrets and credentials, in the key-value store) into the tables,
 * once: in one transaction with the setting that says it is done, so the dev token a user saved, the admin key,
 * list cursors, builder links and stored answers work as before the upgrade. Records naming an account that
 * is not there (an older import could leave them) are left behind, as no reader could reach them. The
 * key-value copies stay where they are, unread. Answers how many records it moved.
 */
export async function moveAccountRecords(storage: Storage, database: Database, clock: Clock): Promise<number> {
  if (await database.db.selectFrom("settings").select("name").where("name", "=", MOVED).executeTakeFirst()) return 0;
  const records: Record<string, unknown> = {};
  for (const prefix of PREFIXES) {
    for (const key of await storage.getKeys(prefix)) {
      if (!key.startsWith(`${prefix}:`)) continue;
      const value = await skipUnreadable(storage.getItem(key));
      if (value !== null && typeof value === "object") records[key] = value;
    }
  }
  const accounts = new Set(Object.keys(records).filter((key) => key.startsWith("accounts:")).map((key) => key.slice("accounts:".length)));
  for (const [key, value] of Object.entries(records)) {
    if (key.startsWith("tokens:") && !accounts.has((value as { account_id?: string }).account_id ?? "")) delete records[key];
    if (key.startsWith("idem:") && !accounts.has(key.split(":")[1]!)) delete records[key];
    if (key.startsWith("apps:")) records[key] = { ...(value as AppRecord), account_ids: ((value as AppRecord).account_ids ?? []).filter((id) => accounts.has(id)) };
  }
  const settings: { name: string; value: string }[] = [];
  for (const meta of META) {
    const value = meta.value(await skipUnreadable(storage.getItem(meta.key)));
    if (value !== null) settings.push({ name: meta.setting, value });
  }
  const at = toTimestamp(clock.now());
  return database.transaction(async (tx) => {
    for (const setting of [...settings, { name: MOVED, value: at }]) {
      await tx.insertInto("settings").values({ ...setting, created_at: at }).onConflict((oc) => oc.column("name").doNothing()).execute();
    }
    return insertAccountRecords(tx, records);
  });
}
