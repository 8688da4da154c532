import { z } from "zod";
import type { Stores } from "../storage/create-storage.js";
import { LpError } from "../errors.js";
import { checkRecord, type RecordIssue } from "./import-check.js";
import { skipUnreadable } from "../storage/record-check.js";

/** A storage key: segments start with a letter, digit, `_` or `-`, so `..` and hidden names never get in. */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(:[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;

/** Format of `GET /_admin/export` and `POST /_admin/import`. */
export const exportSchema = z.strictObject({
  format: z.literal("lp-export"),
  version: z.literal(1),
  exported_at: z.string(),
  records: z.record(z.string().regex(KEY), z.unknown()),
  media: z.record(z.string().regex(KEY), z.string().describe("base64")),
});

export type ExportDocument = z.infer<typeof exportSchema>;

/** Copies every record and media file into one JSON document. */
export async function exportStores(stores: Stores, exportedAt: string): Promise<ExportDocument> {
  const records: Record<string, unknown> = {};
  for (const key of await stores.data.getKeys()) {
    if (key.startsWith("meta:")) continue;
    // An unreadable record (logged by the guarded store) stays where it is for `lp doctor`.
    const value = await skipUnreadable(stores.data.getItem(key));
    if (value !== null) records[key] = value;
  }
  const media: Record<string, string> = {};
  for (const key of await stores.media.getKeys()) {
    const raw = await stores.media.getItemRaw(key);
    if (raw) media[key] = Buffer.from(raw as Uint8Array).toString("base64");
  }
  return { format: "lp-export", version: 1, exported_at: exportedAt, records, media };
}

/** Most issues one refused import lists: a document of a million bad records must not answer with a million. */
export const MAX_IMPORT_ISSUES = 1000;
const MEDIA_KEY = /^[a-z0-9_-]+(:[A-Za-z0-9_-]+)*:[A-Za-z0-9_-]+\.(png|jpg|gif|webp|avif|svg)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Every problem of a document, before anything changes: meta keys, records that do not fit the schema of
 * their store (by key), media that is not a media path or not base64. At most {@link MAX_IMPORT_ISSUES}.
 */
export function checkImport(doc: ExportDocument): RecordIssue[] {
  const issues: RecordIssue[] = [];
  const add = (found: RecordIssue[]) => issues.length < MAX_IMPORT_ISSUES && issues.push(...found.slice(0, MAX_IMPORT_ISSUES - issues.length));
  for (const [key, value] of Object.entries(doc.records)) {
    add(key.startsWith("meta:") ? [{ path: `records.${key}`, code: "meta_key", message: "meta: keys are not importable" }] : checkRecord(key, value));
  }
  for (const [key, value] of Object.entries(doc.media)) {
    if (!MEDIA_KEY.test(key)) add([{ path: `media.${key}`, code: "invalid_media_key", message: "is not a media path" }]);
    else if (value.length % 4 !== 0 || !BASE64.test(value)) add([{ path: `media.${key}`, code: "invalid_base64", message: "is not base64" }]);
  }
  return issues;
}

/**
 * Replaces every record and media file with those of `doc` (meta keys are kept), all or nothing: the whole
 * document is checked first ({@link checkImport}), and a refused one changes nothing; then the store swaps
 * the data in one step ({@link Stores.replace}), so a kill leaves the old data or the new, never a mix.
 */
export async function importStores(stores: Stores, parsed: ExportDocument): Promise<{ records: number; media: number }> {
  const issues = checkImport(parsed);
  if (issues.length) {
    const more = issues.length >= MAX_IMPORT_ISSUES ? ` (the first ${MAX_IMPORT_ISSUES})` : "";
    throw new LpError("validation_error", `The import was refused, nothing changed: ${issues.length} invalid entries${more}.`, { issues });
  }
  if (stores.replace) await stores.replace(parsed.records, parsed.media);
  else {
    await clearStores(stores);
    for (const [key, value] of Object.entries(parsed.records)) await stores.data.setItem(key, value as never);
    for (const [key, value] of Object.entries(parsed.media)) await stores.media.setItemRaw(key, Buffer.from(value, "base64"));
  }
  return { records: Object.keys(parsed.records).length, media: Object.keys(parsed.media).length };
}

/** Removes every record but the meta ones, and every media file. */
export async function clearStores(stores: Stores): Promise<void> {
  for (const key of await stores.data.getKeys()) if (!key.startsWith("meta:")) await stores.data.removeItem(key);
  await stores.media.clear();
}
