import { HTTPResponse } from "h3";
import { FastResponse } from "srvx";

/**
 * What route handlers return. The helpers below build h3's `HTTPResponse`, which h3 turns into its
 * Node fast response: a global `Response` with a string body is instead sent through a web stream,
 * which measured several times slower per request. Handlers may still return a `Response`.
 */
export type RouteResponse = Response | HTTPResponse;

/**
 * What the helpers build: an `HTTPResponse` whose headers also stay readable as a plain object, so the
 * pipeline can send it without a `Headers` object ever being made ({@link toWire}).
 */
export class PlainResponse extends HTTPResponse {
  /**
   * `owned`: the header object was made for this response alone, so {@link toWire} may add the request id to
   * it instead of copying it. Shared objects (prepared once, sent many times) leave it false.
   */
  constructor(
    body: string | Uint8Array<ArrayBuffer> | null,
    readonly plain: { status: number; headers: Record<string, string> },
    readonly owned = false,
  ) {
    super(body, plain);
  }
}

/**
 * The response h3 sends for a {@link PlainResponse}: srvx's Node response over the plain header object plus
 * `x-request-id`, which srvx writes as it is. An `HTTPResponse` would be turned into a `Headers` object (its
 * values checked one by one), have the request id set on it, and be iterated again to be written: measured
 * a few µs and a share of the garbage of every request. Anything else passes through.
 */
export function toWire(response: RouteResponse, requestId: string): { response: RouteResponse; headers?: Record<string, string> } {
  if (!(response instanceof PlainResponse)) return { response };
  let headers: Record<string, string>;
  if (response.owned) {
    headers = response.plain.headers;
    headers["x-request-id"] = requestId;
  } else headers = { ...response.plain.headers, "x-request-id": requestId };
  return { response: new FastResponse(response.body as string | Uint8Array<ArrayBuffer> | null, { status: response.plain.status, headers }) as Response, headers };
}

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): RouteResponse {
  return new PlainResponse(
    JSON.stringify(body),
    { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } },
    true,
  );
}

/** `{ data }`: the envelope of account-plane success bodies. */
export function data(payload: unknown, status = 200, headers: Record<string, string> = {}): RouteResponse {
  return json({ data: payload }, status, headers);
}

/** `{ data }` around a payload already serialised as JSON (the same bytes {@link data} makes of it parsed). */
export function dataText(payloadJson: string, status = 200): RouteResponse {
  return new PlainResponse(`{"data":${payloadJson}}`, { status, headers: { "content-type": "application/json; charset=utf-8" } }, true);
}

/** A list body with `pagination`, plus a `Link: rel="next"` header when more follow. */
export function list(
  page: { data: unknown[]; pagination: { next_cursor: string | null; has_more: boolean } },
  url: URL,
): RouteResponse {
  const headers: Record<string, string> = {};
  if (page.pagination.has_more && page.pagination.next_cursor) {
    const next = new URL(url);
    next.searchParams.set("cursor", page.pagination.next_cursor);
    headers.link = `<${next.pathname}${next.search}>; rel="next"`;
  }
  return json(page, 200, headers);
}

/** 204. */
export function noContent(): RouteResponse {
  return new HTTPResponse(null, { status: 204 });
}

/** 202 with `Location` set to the poll URL. */
export function accepted(payload: { poll_url: string } & Record<string, unknown>): RouteResponse {
  return json({ data: payload }, 202, { location: payload.poll_url });
}

/** A route path with its `:name` segments filled in: how poll URLs are made from the routes they poll. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
}
