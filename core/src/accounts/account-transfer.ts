import { fromJson, toJson } from "../db/column-types.js";
import type { Database, Queries, Tx } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { LpError } from "../errors.js";
import { exportIdempotencyRecords, insertIdempotencyRecords, isIdempotencyRecordKey } from "../idempotency/idempotency-transfer.js";
import { withQuotaDefaults, type AccountRecord, type AppRecord, type Scope, type TokenRecord } from "./schemas.js";

/**
 * The account plane in `GET /_admin/export`, `POST /_admin/import` and `POST /_admin/reset`: rows of the
 * account tables (and the Idempotency-Key records, which belong to accounts) under the keys and in the shape
 * the key-value store gave them (`accounts:<id>`, `tokens:<sha256>`, `apps:<id>`, `idem:<account>:<key>`), so
 * an export's document is the same whichever store keeps what.
 */
const ACCOUNT = /^accounts:([^:]+)$/;
const TOKEN = /^tokens:([0-9a-f]{64})$/;
const APP = /^apps:([^:]+)$/;
const CHUNK = 200;

/** Whether an export's record `key` is kept in the account tables. */
export const isAccountRecordKey = (key: string): boolean => ACCOUNT.test(key) || TOKEN.test(key) || APP.test(key) || isIdempotencyRecordKey(key);

/** Every account, token, application and Idempotency-Key record, by its export key. */
export async function exportAccountRecords(q: Queries): Promise<Record<string, unknown>> {
  const records: Record<string, unknown> = {};
  const accounts = await q.selectFrom("accounts").select(["account_id", "environment", "currency", "page_quota", "product_quota", "media_quota_bytes", "created_at"]).orderBy("account_id").execute();
  for (const account of accounts) records[`accounts:${account.account_id}`] = account satisfies AccountRecord;
  const tokens = await q.selectFrom("tokens").selectAll().orderBy("token_hash").execute();
  for (const { token_hash, account_id, scopes, expires_at, created_at } of tokens) {
    records[`tokens:${token_hash}`] = { account_id, scopes: fromJson<Scope[]>(scopes), expires_at, created_at } satisfies TokenRecord;
  }
  const apps = await q.selectFrom("applications").select(["application_id", "name", "secret_hash", "created_at"]).orderBy("application_id").execute();
  const installs = new Map<string, string[]>(apps.map((app) => [app.application_id, []]));
  const rows = await q.selectFrom("application_accounts").select(["application_id", "account_id"]).orderBy("application_id").orderBy("position").execute();
  for (const row of rows) installs.get(row.application_id)?.push(row.account_id);
  for (const app of apps) records[`apps:${app.application_id}`] = { ...app, account_ids: installs.get(app.application_id)! } satisfies AppRecord;
  return { ...records, ...(await exportIdempotencyRecords(q)) };
}

/**
 * Empties the account tables, in `q`: every account (and with it, by the foreign keys, its tokens, its
 * applications' installs, its Idempotency-Key records and whatever else an account holds) and every application.
 * The settings (the dev credentials, the keys of cursors and builder links) are kept.
 */
export async function clearAccountTables(q: Queries): Promise<void> {
  await q.deleteFrom("applications").execute();
  await q.deleteFrom("accounts").execute();
}

/**
 * Replaces the account tables with the records of a checked import (`records` may hold others: they are left
 * alone), in one transaction; answers how many it wrote. A token, application or key that names an account
 * the document lacks refuses the whole import, and nothing changes.
 */
export async function replaceAccountRecords(database: Database, records: Record<string, unknown>): Promise<number> {
  try {
    return await database.transaction(async (tx) => {
      await clearAccountTables(tx);
      return insertAccountRecords(tx, records);
    });
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    throw new LpError("validation_error", "The import was refused, nothing changed: a token, application or Idempotency-Key record names an account the document does not hold.", {
      issues: [{ path: "records", code: "missing_account", message: "names an account the document does not hold" }],
    });
  }
}

/**
 * Writes the account, token, application and Idempotency-Key records among `records` (checked ones: an
 * import's, or a data dir's of before the tables) in `tx`; answers how many. A record naming an account
 * `records` lacks is refused by the foreign key.
 */
export async function insertAccountRecords(tx: Tx, records: Record<string, unknown>): Promise<number> {
  return (await insertAccountPlane(tx, records)) + (await insertIdempotencyRecords(tx, records));
}

async function insertAccountPlane(tx: Tx, records: Record<string, unknown>): Promise<number> {
  const accounts: ReturnType<typeof toAccountRow>[] = [];
  const tokens: { token_hash: string; account_id: string; scopes: string; expires_at: string | null; created_at: string }[] = [];
  const apps: AppRecord[] = [];
  for (const [key, value] of Object.entries(records)) {
    const token = TOKEN.exec(key);
    if (ACCOUNT.test(key)) accounts.push(toAccountRow(value as AccountRecord));
    else if (token) {
      const record = value as TokenRecord;
      tokens.push({ token_hash: token[1]!, account_id: record.account_id, scopes: toJson(record.scopes), expires_at: record.expires_at, created_at: record.created_at });
    } else if (APP.test(key)) apps.push(value as AppRecord);
  }
  // Accounts first: the others name them.
  for (let i = 0; i < accounts.length; i += CHUNK) await tx.insertInto("accounts").values(accounts.slice(i, i + CHUNK)).execute();
  for (let i = 0; i < tokens.length; i += CHUNK) await tx.insertInto("tokens").values(tokens.slice(i, i + CHUNK)).execute();
  for (const app of apps) {
    await tx.insertInto("applications").values({ application_id: app.application_id, name: app.name, secret_hash: app.secret_hash, created_at: app.created_at, updated_at: app.created_at }).execute();
    const accountIds = [...new Set(app.account_ids)];
    if (accountIds.length > 0) {
      await tx.insertInto("application_accounts").values(accountIds.map((account_id, position) => ({ application_id: app.application_id, account_id, position }))).execute();
    }
  }
  return accounts.length + tokens.length + apps.length;
}

/** An exported account (quotas defaulted for records written before they existed) as its row. */
function toAccountRow(record: AccountRecord) {
  const { account_id, environment, currency, page_quota, product_quota, media_quota_bytes, created_at } = withQuotaDefaults(record);
  return { account_id, environment, currency, page_quota, product_quota, media_quota_bytes, created_at, updated_at: created_at };
}
