import { createFetch } from "ofetch";
import { ApiError, ClientConfigError, TransportError, type ErrorBody } from "./errors.js";

/** A fetch-compatible function: global `fetch`, `app.request` of an h3 app, or a test double. */
export type FetchLike = (input: any, init?: RequestInit) => Response | Promise<Response>;

/** Which credentials a request carries. */
export type Plane = "account" | "developer" | "admin" | "none";

/** A query string value; arrays repeat the key, `undefined` leaves it out. */
export type QueryValue = string | number | boolean | null | undefined | Array<string | number>;

/** Per-request options. */
export interface RequestOptions {
  /** JSON-serialisable value, `FormData`, or a string sent as is. */
  body?: unknown;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  /** Sent as `Idempotency-Key` (account-plane POST and PATCH). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** Credentials and target of a client. */
export interface TransportOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:4010` (no `/v1`). */
  baseUrl: string;
  /** Access token of the account plane. */
  token?: string;
  /** The `account_id` in `/v1/accounts/{account_id}`. */
  accountId?: string;
  /** Application id and client secret of the developer plane (HTTP Basic). */
  appId?: string;
  appSecret?: string;
  /** Key of the local admin API (`lp serve`). */
  adminKey?: string;
  fetch?: FetchLike;
  /** Headers sent with every request (e.g. `user-agent`). */
  headers?: Record<string, string>;
}

/** What a request gives back: status, headers and the parsed body. */
export interface RawResponse<T = unknown> {
  status: number;
  headers: Headers;
  data: T;
}

/** The plane a raw path belongs to, by its prefix. */
export function planeOf(path: string): Plane {
  if (path.startsWith("/v1/developer")) return "developer";
  if (path.startsWith("/_admin")) return "admin";
  if (path.startsWith("/v1/accounts")) return "account";
  return "none";
}

/** Sends requests with the right credentials, `retry: 0`, and turns error bodies into {@link ApiError}. */
export function createTransport(options: TransportOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const $fetch = createFetch({ fetch: (options.fetch ?? globalThis.fetch) as typeof fetch });

  function authorization(plane: Plane, strict: boolean): string | undefined {
    const missing = (what: ClientConfigError["missing"], hint: string) => {
      if (strict) throw new ClientConfigError(what, `No ${hint} configured: pass '${what}' to createClient.`);
      return undefined;
    };
    if (plane === "account") return options.token ? `Bearer ${options.token}` : missing("token", "access token");
    if (plane === "admin") return options.adminKey ? `Bearer ${options.adminKey}` : missing("adminKey", "admin key");
    if (plane === "developer") {
      if (!options.appId) return missing("appId", "application id");
      if (!options.appSecret) return missing("appSecret", "client secret");
      return `Basic ${Buffer.from(`${options.appId}:${options.appSecret}`).toString("base64")}`;
    }
    return undefined;
  }

  /**
   * Sends one request. `strict` makes missing credentials an error before anything is sent; raw calls
   * send what they have and let the server answer.
   */
  async function send<T>(method: string, path: string, plane: Plane, init: RequestOptions = {}, strict = true): Promise<RawResponse<T>> {
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    const auth = authorization(plane, strict);
    if (auth) headers.authorization = auth;
    if (init.idempotencyKey) headers["idempotency-key"] = init.idempotencyKey;
    Object.assign(headers, init.headers);
    const url = `${baseUrl}${path}`;
    let response;
    try {
      response = await $fetch.raw(url, {
        method: method.toUpperCase() as "GET",
        body: init.body as BodyInit | Record<string, unknown> | undefined,
        query: toQuery(init.query),
        headers,
        signal: init.signal,
        retry: 0,
        ignoreResponseError: true,
      });
    } catch (error) {
      if ((error as Error)?.name === "AbortError") throw error;
      throw new TransportError(url, (error as { cause?: unknown }).cause ?? error);
    }
    const data = response._data as unknown;
    if (response.status >= 400) {
      throw new ApiError(response.status, toErrorBody(response.status, response.statusText, data, response.headers), data, response.headers);
    }
    return { status: response.status, headers: response.headers, data: data as T };
  }

  /** The account-plane prefix `/v1/accounts/{accountId}`. */
  function accountPath(rest: string): string {
    authorization("account", true);
    if (!options.accountId) throw new ClientConfigError("accountId", "No account id configured: pass 'accountId' to createClient.");
    return `/v1/accounts/${encodeURIComponent(options.accountId)}${rest}`;
  }

  return { send, accountPath, baseUrl, options };
}

/** What {@link createTransport} returns. */
export type Transport = ReturnType<typeof createTransport>;

function toQuery(query: RequestOptions["query"]): Record<string, string | string[]> | undefined {
  if (!query) return undefined;
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    out[key] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return out;
}

function toErrorBody(status: number, statusText: string, data: unknown, headers: Headers): ErrorBody {
  const requestId = headers.get("x-request-id") ?? undefined;
  const error = (data as { error?: Partial<ErrorBody> } | null)?.error;
  if (error && typeof error === "object" && typeof error.code === "string") {
    return {
      code: error.code,
      message: typeof error.message === "string" ? error.message : `HTTP ${status}`,
      details: error.details,
      request_id: error.request_id ?? requestId,
    };
  }
  const text = typeof data === "string" && data.trim() && data.length < 300 ? data.trim() : statusText || "request failed";
  return { code: `http_${status}`, message: `HTTP ${status}: ${text}`, request_id: requestId };
}
