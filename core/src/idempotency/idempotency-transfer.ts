import { fromJson, toJson } from "../db/column-types.js";
import type { Queries, Tx } from "../db/database.js";
import type { StoredResponse } from "./idempotency.js";

/**
 * Idempotency-Key records in `GET /_admin/export` and `POST /_admin/import`: rows of `idempotency_keys` under
 * the keys and in the shape the key-value store gave them (`idem:<account>:<key>`), so documents exported
 * before the tables import, and the other way round.
 */
const KEY = /^idem:([^:]+):([^:]+)$/;

/** A key's record as an export holds it. `committed` is how older exports said `changed_at`. */
interface IdempotencyRecord {
  fingerprint: string;
  response: StoredResponse | null;
  changed_at?: string;
  committed?: boolean;
  created_at: string;
  expires_at: string;
}

/** Whether an export's record `key` is an Idempotency-Key record. */
export const isIdempotencyRecordKey = (key: string): boolean => KEY.test(key);

/**
 * The records of the keys that were answered or whose change was made. A claim still running is no data:
 * its request is under way (an export waits for background work, not for requests) and answers by itself.
 */
export async function exportIdempotencyRecords(q: Queries): Promise<Record<string, IdempotencyRecord>> {
  const rows = await q
    .selectFrom("idempotency_keys")
    .selectAll()
    .where((eb) => eb.or([eb("response_status", "is not", null), eb("changed_at", "is not", null)]))
    .orderBy("account_id")
    .orderBy("key")
    .execute();
  const records: Record<string, IdempotencyRecord> = {};
  for (const row of rows) {
    const response = row.response_status === null ? null : { status: row.response_status, headers: fromJson<Record<string, string>>(row.response_headers) ?? {}, body: row.response_body ?? "" };
    records[`idem:${row.account_id}:${row.key}`] = {
      fingerprint: row.fingerprint,
      response,
      ...(row.changed_at !== null && { changed_at: row.changed_at }),
      created_at: row.created_at,
      expires_at: row.expires_at,
    };
  }
  return records;
}

/**
 * Writes the Idempotency-Key records among `records` (checked by the import) in the import's transaction,
 * after the accounts they belong to; answers how many. A key of an account the document lacks is refused
 * by the foreign key.
 */
export async function insertIdempotencyRecords(tx: Tx, records: Record<string, unknown>): Promise<number> {
  const rows = Object.entries(records).flatMap(([key, value]) => {
    const match = KEY.exec(key);
    if (!match) return [];
    const record = value as IdempotencyRecord;
    return [
      {
        account_id: match[1]!,
        key: match[2]!,
        fingerprint: record.fingerprint,
        response_status: record.response?.status ?? null,
        response_headers: record.response ? toJson(record.response.headers ?? {}) : null,
        response_body: record.response ? (record.response.body ?? "") : null,
        claimed_by: null,
        claim_expires_at: null,
        changed_at: record.changed_at ?? (record.committed ? record.created_at : null),
        created_at: record.created_at,
        expires_at: record.expires_at,
      },
    ];
  });
  for (let i = 0; i < rows.length; i += 200) await tx.insertInto("idempotency_keys").values(rows.slice(i, i + 200)).execute();
  return rows.length;
}
