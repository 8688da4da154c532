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
   * `owned`: the header object was made for this response alone. Shared objects (prepared once, sent many
   * times) leave it false, and the wire response keeps their flat header list to send them again. Names are
   * lower case: the list goes to Node as it is.
   */
  constructor(
    body: string | Uint8Array<ArrayBuffer> | null,
    readonly plain: { status: number; headers: Record<string, string> },
    readonly owned = false,
  ) {
    super(body, plain);
  }
}

/** A header object's entries as Node's flat raw list (`[name, value, name, value, …]`), kept per shared object. */
const flatOf = new WeakMap<Record<string, string>, string[]>();
function flatten(headers: Record<string, string>): string[] {
  const flat: string[] = [];
  for (const name in headers) flat.push(name, headers[name]!);
  return flat;
}

/**
 * The response h3 sends for a {@link PlainResponse}: srvx's Node response (so h3 and tests read it as any
 * `Response`), except that the Node adapter is handed the headers as one flat list built from the plain
 * object, plus `x-request-id` and the body's length. srvx would otherwise copy the object into entries,
 * lowercase every name and count the body again; an `HTTPResponse` would first become a `Headers` object,
 * its values checked one by one. A shared header object (not `owned`) is flattened once.
 */
class WireResponse extends FastResponse {
  readonly #body: string | Uint8Array<ArrayBuffer> | null;
  readonly #status: number;
  readonly #headers: Record<string, string>;
  readonly #owned: boolean;
  readonly #requestId: string;
  constructor(response: PlainResponse, requestId: string) {
    const body = response.body as string | Uint8Array<ArrayBuffer> | null;
    const { status, headers } = response.plain;
    // What the web side reads (`headers`, `text()`: h3's HEAD answer, `app.request` in tests): made on first use.
    super(body, {
      status,
      get headers() {
        return { ...headers, "x-request-id": requestId };
      },
    });
    this.#body = body;
    this.#status = status;
    this.#headers = headers;
    this.#owned = response.owned;
    this.#requestId = requestId;
  }
  /** What srvx's Node adapter writes (`_sendNodeResponse` calls it when present). */
  _toNodeResponse(): { status: number; statusText: string; headers: string[]; body: string | Uint8Array | null } {
    let flat: string[];
    if (this.#owned) flat = flatten(this.#headers);
    else {
      let shared = flatOf.get(this.#headers);
      if (!shared) flatOf.set(this.#headers, (shared = flatten(this.#headers)));
      flat = shared.slice();
    }
    flat.push("x-request-id", this.#requestId);
    const body = this.#body;
    if (body !== null && this.#headers["content-length"] === undefined) {
      flat.push("content-length", String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength));
    }
    return { status: this.#status, statusText: "", headers: flat, body };
  }
}

/**
 * The response h3 sends for a route's answer: a {@link PlainResponse} becomes a {@link WireResponse}, with its
 * header object (without the request id, which the response adds) for the app's `finish` and the request
 * log to read. Anything else passes through.
 */
export function toWire(response: RouteResponse, requestId: string): { response: RouteResponse; headers?: Record<string, string> } {
  if (!(response instanceof PlainResponse)) return { response };
  return { response: new WireResponse(response, requestId) as unknown as Response, headers: response.plain.headers };
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
