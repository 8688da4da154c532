import { z } from "zod";
import { dataOf, timestampSchema } from "./common.js";

/** An account made through the admin API. */
export const accountSchema = z.object({
  account_id: z.string(),
  environment: z.enum(["production", "test"]),
  currency: z.string(),
  page_quota: z.number().int(),
  product_quota: z.number().int().describe("Most products (soft-deleted ones do not count)"),
  media_quota_bytes: z.number().int().describe("Most bytes of uploaded product images (those of soft-deleted products do not count)"),
  created_at: timestampSchema,
});

/** A new access token, shown once. */
export const createdTokenSchema = z.object({
  token: z.string(),
  account_id: z.string(),
  scopes: z.array(z.string()),
  expires_at: timestampSchema.nullable(),
});

/** A new partner application; `client_secret` is shown once. */
export const createdAppSchema = z.object({
  application_id: z.string(),
  client_secret: z.string(),
  name: z.string(),
  account_ids: z.array(z.string()),
});

/**
 * What an import answers: the rows written (in all, and by table), the media files, and the records of a
 * format-2 document (version 1) that were left out because they name what the document does not hold.
 */
export const importResultSchema = z.object({
  records: z.number().int().min(0).describe("Rows written, every table together"),
  media: z.number().int().min(0).describe("Media files written"),
  tables: z.record(z.string(), z.number().int().min(0)).describe("Rows written by table"),
  left: z
    .array(z.object({ key: z.string().describe("The record's key in the document"), reason: z.string() }))
    .describe("Records of a version-1 document that were not imported (a token of an account the document lacks, ...); always empty for version 3"),
});

/** What a reset answers. */
export const resetResultSchema = z.object({ reset: z.literal(true) });

/** The server's clock (`/_admin/clock`): the time every stamp reads, and whether it moves by itself. */
export const clockSchema = z.object({
  now: timestampSchema,
  mode: z.enum(["system", "manual"]).describe("system: the machine's clock; manual: moves only through POST /_admin/clock"),
});

/** One side of a journal entry: headers and body with every credential redacted, the body cut at 8 KiB. */
export const journalMessageSchema = z.object({
  headers: z.record(z.string(), z.string()),
  body: z.string().describe("As received or sent (JSON re-indented); credentials replaced by [redacted]; at most 8 KiB"),
  truncated: z.boolean(),
});

/** An API request lp answered, as the request journal (`/_admin/requests`) keeps it. */
export const journalEntrySchema = z.object({
  id: z.string().describe("The request id (the answer's X-Request-Id)"),
  seq: z.number().int().min(1).describe("Order of arrival in this server; pass as `after` to read only later ones"),
  method: z.string(),
  path: z.string().describe("Without the query string"),
  query: z.record(z.string(), z.string()).describe("The query parameters, credential-named ones redacted"),
  status: z.number().int(),
  started_at: timestampSchema.describe("By the server's clock (a manual one too)"),
  duration_ms: z.number().min(0),
  plane: z.string().describe("account, app, admin, none; - when no route matched"),
  account_id: z.string().nullable().describe("The account its credentials proved, if any"),
  application_id: z.string().nullable(),
  source: z.enum(["api", "replay"]).describe("replay: the dashboard sent a logged request again"),
  request: journalMessageSchema,
  response: journalMessageSchema,
});

/** What a replay of past events to an endpoint did (`POST /_admin/webhook-endpoints/{id}/replay`). */
export const replayResultSchema = z.object({
  endpoint_id: z.string(),
  replayed: z.number().int().min(0).describe("New deliveries scheduled: one per event of the window the endpoint would have been sent"),
  since: timestampSchema,
  until: timestampSchema,
});

export const accountResponse = dataOf(accountSchema);
export const replayResultResponse = dataOf(replayResultSchema);
export const journalResponse = dataOf(z.array(journalEntrySchema));
export const clockResponse = dataOf(clockSchema);
export const createdTokenResponse = dataOf(createdTokenSchema);
export const createdAppResponse = dataOf(createdAppSchema);
export const importResultResponse = dataOf(importResultSchema);
export const resetResultResponse = dataOf(resetResultSchema);

export type Account = z.infer<typeof accountSchema>;
export type CreatedToken = z.infer<typeof createdTokenSchema>;
export type CreatedApp = z.infer<typeof createdAppSchema>;
export type ImportResult = z.infer<typeof importResultSchema>;
export type ClockState = z.infer<typeof clockSchema>;
export type JournalEntry = z.infer<typeof journalEntrySchema>;
export type ReplayResult = z.infer<typeof replayResultSchema>;
