import { durationText, toDurationMs } from "@lp/core";
import type { JournalEntry } from "@lp/contract";
import { z } from "zod";
import type { JournalFilter, LoggedRequest } from "./request-log.js";

/** The query of `GET /_admin/requests`. */
export const journalQuerySchema = z.object({
  method: z.string().max(10, { abort: true }).regex(/^[A-Za-z]{1,10}$/, "an HTTP method, e.g. POST").optional().describe("Only this method"),
  path: z.string().max(512).optional().describe("Only paths (without the query) matching this glob; * is any run of characters, e.g. /v1/accounts/*/products*"),
  status: z.string().max(3, { abort: true }).regex(/^[1-5]([0-9][0-9]|xx)$/, "a status (201) or a class (4xx)").optional().describe("Only this status (201) or class (4xx)"),
  since: z
    .union([z.iso.datetime({ offset: true }), durationText])
    .optional()
    .describe("Only requests started at or after this time, or within this long before now by the server's clock (10m)"),
  after: z.coerce.number({ error: "a seq: a whole number" }).int("a seq: a whole number").min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("Only entries with a greater seq (a follower's last one)"),
  limit: z.coerce.number({ error: "must be an integer from 1 to 500" }).int().min(1, "must be an integer from 1 to 500").max(500, "must be an integer from 1 to 500").default(100),
});

export type JournalQuery = z.output<typeof journalQuerySchema>;

/** The filter a query asks for; `now` (the server's clock) places a `since` given as a duration. */
export function toJournalFilter(query: JournalQuery, now: Date): JournalFilter {
  const since = query.since === undefined ? undefined : /^\d+[a-z]+$/.test(query.since) ? now.getTime() - toDurationMs(query.since) : Date.parse(query.since);
  return { method: query.method, path: query.path, status: query.status, since, after: query.after, limit: query.limit };
}

/** A logged exchange as `/_admin/requests` answers it: the path and its query apart. */
export function toJournalEntry(logged: LoggedRequest): JournalEntry {
  const at = logged.path.indexOf("?");
  const query = at === -1 ? {} : Object.fromEntries(new URLSearchParams(logged.path.slice(at + 1)));
  return {
    id: logged.id,
    seq: logged.seq,
    method: logged.method,
    path: at === -1 ? logged.path : logged.path.slice(0, at),
    query,
    status: logged.status,
    started_at: logged.at,
    duration_ms: logged.ms,
    plane: logged.plane,
    account_id: logged.account_id,
    application_id: logged.application_id,
    source: logged.source === "replay" ? "replay" : "api",
    request: logged.request,
    response: logged.response,
  };
}
