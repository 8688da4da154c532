import type { H3Event } from "h3";
import { matchesGlob } from "./glob.js";
import { redactBody, redactHeaders, redactUrl } from "./redact.js";

/** One side of a logged exchange, credentials redacted and the body cut short. */
export interface LoggedMessage {
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
}

/** What the request log shows in its list. */
export interface RequestSummary {
  id: string;
  seq: number;
  at: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  /** The route's plane (`account`, `app`, `admin`, `none`), or `-` when no route matched. */
  plane: string;
  account_id: string | null;
  application_id: string | null;
  /** `dashboard` when the dashboard made the call on the user's behalf; `replay` when it sent a logged request again. */
  source: RequestSource;
}

/** Who sent a logged request. */
export type RequestSource = "api" | "dashboard" | "replay";

/** What the dashboard knows of a request it sent: why, and as which application (developer-plane calls). */
export interface DashboardMark {
  source: "dashboard" | "replay";
  /** Whether it went with the dashboard's grant (as the path's account or `app_id`) rather than its own headers. */
  granted: boolean;
  app_id?: string;
}

/** What replaying a logged request needs: never shown, since the headers hold the caller's credentials. */
export interface ReplayableRequest {
  method: string;
  url: string;
  headers: Headers;
  /** Null when the body was not kept whole (multipart, or larger than the log keeps raw). */
  body: string | null;
  mark: DashboardMark | null;
}

/** A page of the log: newest first, and how many entries match in all. */
export interface RequestPage {
  data: RequestSummary[];
  total: number;
  /** Entries the dashboard itself sent that the filter left out (shown with `source=all`). */
  hidden: number;
  /** Pass as `before` for the next, older page; null on the last. */
  next_before: number | null;
}

/** What `/_admin/requests` (and `startLp().requests`) select by; every field narrows. */
export interface JournalFilter {
  method?: string;
  /** A glob over the path without its query (`*` for any run of characters). */
  path?: string;
  /** An exact status (`201`) or a class (`4xx`). */
  status?: string;
  /** Epoch ms: only requests started at or after it. */
  since?: number;
  /** Only entries recorded after this `seq` (a follower's last one). */
  after?: number;
  /** Most entries (newest first); default all that match. */
  limit?: number;
}

/** A logged exchange with both messages. */
export interface LoggedRequest extends RequestSummary {
  request: LoggedMessage;
  response: LoggedMessage;
}

/** Response types whose bodies are worth keeping (not images, pages or event streams). */
const TEXT_TYPES = /^(application\/([\w.+-]+\+)?json|text\/plain)/i;
/** Bodies up to this size are kept as they are and redacted when someone opens the entry; larger ones at once, and cut. */
const KEEP_RAW = 16 * 1024;

/** An exchange as stored: cheap to record on every request; redacted when read. `at` is when it started. */
interface StoredEntry extends Omit<RequestSummary, "at"> {
  /** Epoch ms; formatted when read. */
  at: number;
  /** The path and query as received, unredacted: for a replay only. */
  target: string;
  mark: DashboardMark | null;
  /** The exchange's own header objects, by reference: copied and redacted only when the entry is opened. */
  requestHeaders: Iterable<[string, string]>;
  responseHeaders: Iterable<[string, string]> | { plain: Record<string, string> };
  requestBody: string | { redacted: LoggedMessage["body"]; truncated: boolean };
  responseBody: string | { redacted: LoggedMessage["body"]; truncated: boolean };
}

/** Keeps a small body by reference; a large one is redacted and cut now, so the ring holds no big strings. */
function keep(body: string): StoredEntry["requestBody"] {
  if (body.length <= KEEP_RAW) return body;
  const { body: redacted, truncated } = redactBody(body);
  // A copy, not a slice: V8 slices keep their parent alive, and the parent can be a 500 MiB import.
  return { redacted: Buffer.from(redacted, "utf8").toString("utf8"), truncated };
}

function toMessage(headers: Iterable<[string, string]> | Record<string, string>, body: StoredEntry["requestBody"]): LoggedMessage {
  const redacted = typeof body === "string" ? redactBody(body) : { body: body.redacted, truncated: body.truncated };
  const list = Symbol.iterator in headers ? [...(headers as Iterable<[string, string]>)] : Object.entries(headers);
  return { headers: redactHeaders(new Headers(list)), ...redacted };
}

/**
 * The last `capacity` API requests, newest last, for the dashboard. Fed from the app's `finish` (app.ts); the
 * response body is the route's own string (no clone of the stream, which would cost the fast path), and
 * secrets are redacted before anything leaves the server. Nothing here is persisted.
 */
export function createRequestLog(capacity = 500) {
  const entries: StoredEntry[] = [];
  const listeners = new Set<(entry: RequestSummary) => void>();
  const fromDashboard = new WeakMap<Request, DashboardMark>();
  let seq = 0;

  return {
    capacity,
    /** Labels a request the dashboard itself sends in-process (a relayed call, or a replay). */
    markDashboard(req: Request, mark: DashboardMark = { source: "dashboard", granted: true }) {
      fromDashboard.set(req, mark);
    },
    /** Records a finished exchange; `at` is when it started, by the server's clock (epoch ms). */
    record(event: H3Event, response: Response, ms: number, requestId: string, at: number): void {
      // The dashboard's pages and the journal's own readers (`lp requests --follow` polls) are not API calls to show.
      if (event.url.pathname.startsWith("/_dashboard") || event.url.pathname === "/_admin/requests") return;
      const ctx = event.context as Record<string, unknown>;
      const principal = ctx.principal as { account_id?: string; application_id?: string } | null | undefined;
      const requestType = event.req.headers.get("content-type") ?? "";
      const rawBody = typeof ctx.rawBody === "string" ? ctx.rawBody : requestType.startsWith("multipart/") ? "[multipart body]" : "";
      // The pipeline's plain header object when there is one: reading `response.headers` would build a Headers.
      const wire = ctx.wireHeaders as Record<string, string> | undefined;
      const responseType = (wire ? wire["content-type"] : response.headers.get("content-type")) ?? "";
      const mark = fromDashboard.get(event.req);
      const responseBody = typeof ctx.responseBody === "string" && TEXT_TYPES.test(responseType) ? ctx.responseBody : "";
      const entry: StoredEntry = {
        id: requestId,
        seq: ++seq,
        at,
        method: event.req.method,
        path: redactUrl(event.url),
        status: response.status,
        ms: Math.round(ms * 10) / 10,
        plane: typeof ctx.plane === "string" ? ctx.plane : "-",
        // Only who the credentials proved: a refused call is nobody's, whatever account its path names.
        account_id: principal?.account_id ?? null,
        application_id: principal?.application_id ?? null,
        source: mark?.source ?? "api",
        target: event.url.pathname + event.url.search,
        mark: mark ?? null,
        requestHeaders: event.req.headers as unknown as Iterable<[string, string]>,
        // The plain object lacks the request id, which the wire response adds: put back when the entry is opened.
        responseHeaders: wire ? { plain: wire } : (response.headers as unknown as Iterable<[string, string]>),
        requestBody: keep(rawBody),
        responseBody: keep(responseBody),
      };
      entries.push(entry);
      // shift(), not splice(): V8 trims the front of the array in place instead of allocating the removed part.
      while (entries.length > capacity) entries.shift();
      if (listeners.size === 0) return;
      const summary = toSummary(entry);
      for (const listener of listeners) listener(summary);
    },
    /**
     * A page of summaries, newest first, filtered by status class (`2xx`) or exact status, path substring,
     * plane; the dashboard's own calls only with `source: "all"`. `before` (a `seq`) starts an older page.
     */
    list(filter: { status?: string; path?: string; plane?: string; source?: string; before?: number; limit?: number } = {}): RequestPage {
      const limit = Math.min(Math.max(filter.limit ?? 100, 1), capacity);
      const data: RequestSummary[] = [];
      let total = 0;
      let hidden = 0;
      let next: number | null = null;
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i];
        if (filter.status && !matchesStatus(e.status, filter.status)) continue;
        if (filter.path && !e.path.includes(filter.path)) continue;
        if (filter.plane && e.plane !== filter.plane) continue;
        if (e.source === "dashboard" && filter.source !== "all") {
          hidden++;
          continue;
        }
        total++;
        if (filter.before !== undefined && e.seq >= filter.before) continue;
        if (data.length < limit) data.push(toSummary(e));
        else if (next === null) next = data[data.length - 1].seq;
      }
      return { data, total, hidden, next_before: next };
    },
    /** What a replay of an entry sends (credentials included, so this never leaves the server), or undefined. */
    replayable(id: string): ReplayableRequest | undefined {
      const e = entries.find((x) => x.id === id);
      if (!e) return undefined;
      const headers = new Headers([...e.requestHeaders]);
      const whole = typeof e.requestBody === "string" && !(headers.get("content-type") ?? "").startsWith("multipart/");
      return { method: e.method, url: e.target, headers, body: whole ? (e.requestBody as string) : null, mark: e.mark };
    },
    /**
     * The journal as tests read it: matching exchanges with both messages redacted, newest first. The
     * dashboard's own calls are left out (they are not the calls the code under test made).
     */
    find(filter: JournalFilter = {}): LoggedRequest[] {
      const out: LoggedRequest[] = [];
      const method = filter.method?.toUpperCase();
      for (let i = entries.length - 1; i >= 0 && out.length < (filter.limit ?? capacity); i--) {
        const e = entries[i];
        if (filter.after !== undefined && e.seq <= filter.after) break;
        if (e.source === "dashboard" || !matches(e, filter, method)) continue;
        out.push(toLogged(e));
      }
      return out;
    },
    /** Whether an entry (as listeners receive it) matches `filter`. */
    matches: (entry: RequestSummary, filter: JournalFilter) => entry.source !== "dashboard" && matches({ ...entry, at: Date.parse(entry.at) }, filter, filter.method?.toUpperCase()),
    /** The `seq` of the newest entry (0 when none): where a follower starts. */
    get lastSeq() {
      return seq;
    },
    /** One exchange with both messages, redacted. */
    get(id: string): LoggedRequest | undefined {
      const e = entries.find((x) => x.id === id);
      return e && toLogged(e);
    },
    /** Calls `listener` with each new entry; returns the unsubscribe function. */
    subscribe(listener: (entry: RequestSummary) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function matches(e: Pick<StoredEntry, "method" | "path" | "status" | "at">, filter: JournalFilter, method: string | undefined): boolean {
  if (method && e.method !== method) return false;
  if (filter.status && !matchesStatus(e.status, filter.status)) return false;
  if (filter.since !== undefined && e.at < filter.since) return false;
  if (filter.path !== undefined) {
    const query = e.path.indexOf("?");
    if (!matchesGlob(filter.path, query === -1 ? e.path : e.path.slice(0, query))) return false;
  }
  return true;
}

function toLogged(e: StoredEntry): LoggedRequest {
  const sent = "plain" in e.responseHeaders ? { ...e.responseHeaders.plain, "x-request-id": e.id } : e.responseHeaders;
  return { ...toSummary(e), request: toMessage(e.requestHeaders, e.requestBody), response: toMessage(sent, e.responseBody) };
}

function matchesStatus(status: number, wanted: string): boolean {
  return /^[1-5]xx$/i.test(wanted) ? Math.floor(status / 100) === Number(wanted[0]) : String(status) === wanted;
}

function toSummary(e: StoredEntry): RequestSummary {
  const { id, seq, at, method, path, status, ms, plane, account_id, application_id, source } = e;
  return { id, seq, at: new Date(at).toISOString(), method, path, status, ms, plane, account_id, application_id, source };
}

/** The request log of a server. */
export type RequestLog = ReturnType<typeof createRequestLog>;
