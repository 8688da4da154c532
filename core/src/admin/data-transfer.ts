import { z } from "zod";
import type { Stores } from "../storage/create-storage.js";
import { LpError } from "../errors.js";
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

/** Replaces every record and media file with those of `doc` (meta keys are kept). */
export async function importStores(stores: Stores, parsed: ExportDocument): Promise<{ records: number; media: number }> {
  if (Object.keys(parsed.records).some((k) => k.startsWith("meta:"))) {
    throw new LpError("validation_error", "An export never contains meta records.", {
      issues: [{ path: "records", code: "meta_key", message: "meta: keys are not importable" }],
    });
  }
  await clearStores(stores);
  for (const [key, value] of Object.entries(parsed.records)) await stores.data.setItem(key, value as never);
  for (const [key, value] of Object.entries(parsed.media)) await stores.media.setItemRaw(key, Buffer.from(value, "base64"));
  return { records: Object.keys(parsed.records).length, media: Object.keys(parsed.media).length };
}

/** Removes every record but the meta ones, and every media file. */
export async function clearStores(stores: Stores): Promise<void> {
  for (const key of await stores.data.getKeys()) if (!key.startsWith("meta:")) await stores.data.removeItem(key);
  await stores.media.clear();
}
