import type { Client, FetchLike, RequestOptions } from "@lp/client";
import { formatDuration } from "../../runtime/durations.js";
import { Interrupted, NoAnswer, type Check, type Exchange } from "./checks.js";

/** The credentials a request goes with: the configured ones, none, the narrower token, a wrong app secret. */
export type As = "main" | "anonymous" | "narrow" | "wrong-app-secret";

/** What the HTTP layer is given: `@lp/client` clients for each credential set, and a fetch for absolute URLs. */
export interface HttpDeps {
  clients: Partial<Record<As, Client>> & { main: Client };
  /** For the URLs the API hands out (a deployed site, an uploaded image), which may be on another host. */
  fetch: FetchLike;
  /** The run's signal: Ctrl-C aborts it, and no request is sent after that (but the clean-up's). */
  signal: AbortSignal;
  requestTimeoutMs: number;
}

/** Options of one request. */
export interface SendOptions extends Pick<RequestOptions, "body" | "query" | "headers" | "idempotencyKey"> {
  as?: As;
  /** The clean-up's requests run after an interruption too: they ignore the run's signal. */
  ignoreRunSignal?: boolean;
}

/** An answer to a GET of an absolute URL: the body is not kept, only how long it was. */
export interface UrlAnswer extends Exchange {
  bytes: number;
}

/**
 * Sends the scenario's requests through `@lp/client` (its raw calls: status, headers and body, whatever
 * the status) and turns silence into {@link NoAnswer}. Notes which checks got an answer without the
 * `X-Request-Id` every answer carries (DESIGN §2).
 */
export function createHttp(deps: HttpDeps) {
  const withoutRequestId = new Set<string>();

  /**
   * Ctrl-C stops the run before its next request, never during one: a create whose answer was cut off
   * could leave a record whose id the run never learnt, and so could not delete.
   */
  function timeoutFor(options: { ignoreRunSignal?: boolean }): AbortSignal {
    if (!options.ignoreRunSignal && deps.signal.aborted) throw new Interrupted();
    return AbortSignal.timeout(deps.requestTimeoutMs);
  }

  function silence(c: Check | null, what: string, error: unknown, timeout: AbortSignal): Error {
    const reason = timeout.aborted ? `no answer within ${formatDuration(deps.requestTimeoutMs)}` : `no answer (${(error as Error)?.message ?? String(error)})`;
    return new NoAnswer(c?.id ?? "clean-up", `${what}: ${reason}`);
  }

  /** One API request; `path` starts with `/v1`. Resolves with any answer, rejects only on silence. */
  async function send(c: Check | null, method: string, path: string, options: SendOptions = {}): Promise<Exchange> {
    c?.sent(`${method} ${path}`);
    const client = deps.clients[options.as ?? "main"];
    if (!client) throw new Error(`no client for ${options.as}`);
    const timeout = timeoutFor(options);
    let exchange: Exchange;
    try {
      const raw = await client.requestRaw(method, path, { body: options.body, query: options.query, headers: options.headers, idempotencyKey: options.idempotencyKey, signal: timeout });
      exchange = { method, path, status: raw.status, headers: raw.headers, body: raw.data };
    } catch (error) {
      const e = error as { name?: string; status?: number; headers?: Headers; body?: unknown };
      if (e.name !== "ApiError") throw silence(c, `${method} ${path}`, error, timeout);
      exchange = { method, path, status: e.status!, headers: e.headers ?? new Headers(), body: e.body };
    }
    if (c && !exchange.headers.get("x-request-id")) withoutRequestId.add(c.id);
    return exchange;
  }

  /** A GET of an absolute URL the API gave (no credentials), read to the end. */
  async function getUrl(c: Check, url: string): Promise<UrlAnswer> {
    c.sent(`GET ${url}`);
    const timeout = timeoutFor({});
    try {
      const response = await deps.fetch(url, { method: "GET", redirect: "manual", signal: timeout });
      return { method: "GET", path: url, status: response.status, headers: response.headers, body: undefined, bytes: await drain(response) };
    } catch (error) {
      throw silence(c, `GET ${url}`, error, timeout);
    }
  }

  return { send, getUrl, withoutRequestId };
}

/** Most bytes read of a page or an image: enough to know it answers, never a whole hostile stream. */
const MAX_URL_BYTES = 16 * 1024 * 1024;

async function drain(response: Response): Promise<number> {
  if (!response.body) return 0;
  const reader = response.body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
    if (bytes > MAX_URL_BYTES) {
      await reader.cancel();
      return bytes;
    }
  }
}

/** What {@link createHttp} returns. */
export type Http = ReturnType<typeof createHttp>;

/** `data` of a `{ data }` body, or an empty object when the body has none (the schema check says why). */
export function dataOf(ex: Exchange): Record<string, any> {
  const data = (ex.body as { data?: unknown } | null | undefined)?.data;
  return typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Record<string, any>) : {};
}

/** `data` of a list body, or an empty array. */
export function itemsOf(ex: Exchange): Array<Record<string, any>> {
  const data = (ex.body as { data?: unknown } | null | undefined)?.data;
  return Array.isArray(data) ? data.filter((item): item is Record<string, any> => typeof item === "object" && item !== null) : [];
}
