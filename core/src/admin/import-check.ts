import { storeOfKey } from "../storage/record-schemas.js";

/** One refusal of an import, in the shape of `validation_error`'s issues. */
export interface RecordIssue {
  path: string;
  code: string;
  message: string;
}

/**
 * Checks one record against the full schema of the store its key belongs to (`storage/record-schemas.ts`),
 * before an import changes anything; issues name the key.
 */
export function checkRecord(key: string, value: unknown): RecordIssue[] {
  const store = storeOfKey(key);
  const path = `records.${key}`;
  if (!store) return [{ path, code: "unknown_store", message: "no store keeps records under this key" }];
  const parsed = store.full().safeParse(value);
  if (parsed.success) return [];
  const first = parsed.error.issues[0]!;
  const where = first.path.length ? `${first.path.join(".")}: ` : "";
  return [{ path, code: "invalid_record", message: `is not a valid ${store.store} record (${where}${first.message})` }];
}
