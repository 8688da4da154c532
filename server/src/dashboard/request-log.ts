import type { H3Event } from "h3";
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
  /** `dashboard` when the dashboard made the call on the user's behalf. */
  source: "api" | "dashboard";
}

/** A logged exchange with both messages. */
export interface LoggedRequest extends RequestSummary {
  request: LoggedMessage;
  response: LoggedMessage;
}

/** Response types whose bodies are worth keeping (not images, pages or event streams). */
const TEXT_TYPES = /^(application\/([\w.+-]+\+)?json|text\/plain)/i;
/** Most of a response body read for the log: enough to redact JSON field by field, then cut to 8 KiB. */
const READ_LIMIT = 256 * 1024;

/**
 * The last `capacity` API requests, newest last, for the dashboard. Fed from the app's `onResponse`;
 * nothing here is persisted, and every message is redacted before it is stored.
 */
export function createRequestLog(capacity = 500) {
  const entries: LoggedRequest[] = [];
  const listeners = new Set<(entry: RequestSummary) => void>();
  const fromDashboard = new WeakSet<Request>();
  let seq = 0;

  return {
    capacity,
    /** Labels a request the dashboard itself sends in-process. */
    markDashboard(req: Request) {
      fromDashboard.add(req);
    },
    /** Records a finished exchange; reads the response body from a clone, so the client's copy is untouched. */
    async record(event: H3Event, response: Response, ms: number, requestId: string, at: Date): Promise<void> {
      if (event.url.pathname.startsWith("/_dashboard")) return;
      const type = response.headers.get("content-type") ?? "";
      const responseText = response.body && TEXT_TYPES.test(type) ? await readPrefix(response.clone().body!, READ_LIMIT).catch(() => "") : "";
      const ctx = event.context as Record<string, unknown>;
      const principal = ctx.principal as { kind?: string; account_id?: string; application_id?: string } | null | undefined;
      const requestType = event.req.headers.get("content-type") ?? "";
      const rawBody = typeof ctx.rawBody === "string" ? ctx.rawBody : requestType.startsWith("multipart/") ? "[multipart body]" : "";
      const params = (ctx.params ?? {}) as Record<string, string>;
      const entry: LoggedRequest = {
        id: requestId,
        seq: ++seq,
        at: at.toISOString(),
        method: event.req.method,
        path: redactUrl(event.url),
        status: response.status,
        ms: Math.round(ms * 10) / 10,
        plane: typeof ctx.plane === "string" ? ctx.plane : "-",
        account_id: principal?.account_id ?? params.account_id ?? null,
        application_id: principal?.application_id ?? null,
        source: fromDashboard.has(event.req) ? "dashboard" : "api",
        request: { headers: redactHeaders(event.req.headers), ...redactBody(rawBody) },
        response: { headers: redactHeaders(response.headers), ...redactBody(responseText) },
      };
      entries.push(entry);
      if (entries.length > capacity) entries.splice(0, entries.length - capacity);
      const summary = toSummary(entry);
      for (const listener of listeners) listener(summary);
    },
    /** Summaries, newest first, filtered by status class (`2xx`) or exact status, path substring, plane. */
    list(filter: { status?: string; path?: string; plane?: string } = {}): RequestSummary[] {
      const out: RequestSummary[] = [];
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i];
        if (filter.status && !matchesStatus(e.status, filter.status)) continue;
        if (filter.path && !e.path.includes(filter.path)) continue;
        if (filter.plane && e.plane !== filter.plane) continue;
        out.push(toSummary(e));
      }
      return out;
    },
    get(id: string): LoggedRequest | undefined {
      return entries.find((e) => e.id === id);
    },
    /** Calls `listener` with each new entry; returns the unsubscribe function. */
    subscribe(listener: (entry: RequestSummary) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Reads at most `limit` bytes of a body (an export can be hundreds of MiB), then lets the rest go. */
async function readPrefix(stream: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, limit);
}

function matchesStatus(status: number, wanted: string): boolean {
  return /^[1-5]xx$/i.test(wanted) ? Math.floor(status / 100) === Number(wanted[0]) : String(status) === wanted;
}

function toSummary(e: LoggedRequest): RequestSummary {
  const { request: _request, response: _response, ...summary } = e;
  return summary;
}

/** The request log of a server. */
export type RequestLog = ReturnType<typeof createRequestLog>;
