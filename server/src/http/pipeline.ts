import { randomBytes } from "node:crypto";
import type { ChangeMark, StoredResponse } from "@lp/core";
import { HTTPResponse, type H3Event } from "h3";
import { authenticate } from "./auth.js";
import { readBody, type BodyInput } from "./body.js";
import { toErrorResponse } from "./errors.js";
import { toWire, type RouteResponse } from "./respond.js";
import { bodyKindOf, type RouteContext, type RouteDef, type ServerContext } from "./route.js";
import { parseBody, parseQuery, toQuery } from "./validate.js";

const NO_BODY = { input: null, raw: "" } as const;

/** Responses worth replaying for an Idempotency-Key: the request ran, and running it again would not differ. */
const isReplayable = (status: number) => (status >= 200 && status < 400) || status === 404;

/**
 * The request id of an event, assigned by the app's `onRequest`. An error raised before that hook ran
 * gets a fresh one here, so its envelope and its `X-Request-Id` header still agree.
 */
export function requestIdOf(event: H3Event): string {
  event.context.requestId ??= `req_${randomBytes(12).toString("hex")}`;
  return event.context.requestId as string;
}

async function capture(response: RouteResponse, requestId: string): Promise<{ response: RouteResponse; stored: StoredResponse }> {
  const status = response.status ?? 200;
  const body = response instanceof Response ? await response.text() : bodyText(response.body);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const stored = { status, headers: { ...headers, "x-request-id": requestId }, body };
  return { response: new HTTPResponse(body, { status, headers }), stored };
}

/** The body of an `HTTPResponse` as text (the helpers in respond.ts only make strings or null). */
function bodyText(body: unknown): string {
  if (body === null || body === undefined) return "";
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString("utf8");
  throw new Error("A replayable response needs a text body");
}

/**
 * Runs one route: authentication, body reading, idempotency, the handler, and errors turned into the
 * envelope. Every outcome is a Response, so the idempotency layer sees exactly what the client sees.
 */
export function toHandler(route: RouteDef, server: ServerContext) {
  const handle = answer(route, server);
  return async (event: H3Event): Promise<RouteResponse> => {
    const response = await handle(event);
    // The route's body string, by reference, for the dashboard's request log (app.ts).
    if (!(response instanceof Response) && typeof response.body === "string") event.context.responseBody = response.body;
    const wire = toWire(response, requestIdOf(event));
    // Headers already carrying the request id, as a plain object: app.ts's finish and the request log
    // read them here instead of making the response build a Headers object.
    if (wire.headers) event.context.wireHeaders = wire.headers;
    return wire.response;
  };
}

/**
 * A route's context. A class rather than an object literal with a `query` getter and setter: the literal
 * made two closures and an accessor pair on every request; the class keeps them on its prototype.
 */
class Context {
  readonly req: Request;
  readonly url: URL;
  input: unknown = null;
  files: RouteContext["files"] = [];
  readonly accountId: string;
  readonly simulate: string | null;
  change: ChangeMark | undefined = undefined;
  #query: RouteContext["query"] | undefined;
  constructor(
    event: H3Event,
    readonly params: Record<string, string>,
    readonly requestId: string,
    readonly principal: RouteContext["principal"],
    readonly server: ServerContext,
  ) {
    this.req = event.req;
    this.url = event.url;
    this.accountId = params.account_id ?? "";
    this.simulate = server.settings.simulate ? event.req.headers.get("lp-simulate") : null;
  }
  /** Parsed on first use: most routes never read the query string. A declared one is set by `run`. */
  get query(): RouteContext["query"] {
    return (this.#query ??= toQuery(this.url));
  }
  set query(value: RouteContext["query"]) {
    this.#query = value;
  }
}

function answer(route: RouteDef, server: ServerContext) {
  return async (event: H3Event): Promise<RouteResponse> => {
    const requestId = requestIdOf(event);
    const req = event.req;
    const params = (event.context.params ?? {}) as Record<string, string>;
    event.context.plane = route.plane; // for the dashboard's request log
    try {
      const principal = await authenticate(route, req, params, server);
      event.context.principal = principal;
      // Routes without a body (every GET) skip the call and its await.
      const kind = bodyKindOf(route);
      const { input: body, raw } = kind !== "none" ? await readBody(req, kind, route.bodyLimit) : NO_BODY;
      event.context.rawBody = raw;
      const ctx = new Context(event, params, requestId, principal, server) as unknown as RouteContext;
      const key = req.headers.get("idempotency-key");
      if (key === null || route.plane !== "account" || (route.method !== "POST" && route.method !== "PATCH")) {
        return await run(route, ctx, body);
      }
      const decision = await server.core.idempotency.begin(
        { account_id: ctx.accountId, method: route.method, path: event.url.pathname, key },
        raw,
      );
      if (decision.kind === "replay") {
        const { status, headers, body } = decision.response;
        // The replay is the original exchange: its request id too, which a stored error body quotes.
        if (headers["x-request-id"]) event.context.requestId = headers["x-request-id"];
        return new HTTPResponse(body, { status, headers: { ...headers, "idempotent-replayed": "true" } });
      }
      let outcome: { response: RouteResponse; stored: StoredResponse } | null = null;
      // The key is claimed; the service marks it changed in its change's transaction, so a crash keeps both or neither.
      ctx.change = decision.change;
      try {
        outcome = await capture(await run(route, ctx, body), requestId);
        return outcome.response;
      } finally {
        // Once a change is made the request must not run again: its answer is kept, whatever it is.
        await decision.finish(outcome?.stored ?? null, outcome !== null && isReplayable(outcome.stored.status));
      }
    } catch (error) {
      return toErrorResponse(error, requestId, route.plane);
    }
  };
}

/**
 * Validates the body and query against the route's schemas, hands their outputs to the handler, and runs
 * it. Inside the idempotency window, as the handler: a reused key is a 422 before the body is judged.
 */
async function run(route: RouteDef, ctx: RouteContext, body: BodyInput | null): Promise<RouteResponse> {
  try {
    if (route.body) {
      const parsed = parseBody(route.body, body);
      ctx.input = parsed.input as RouteContext["input"];
      ctx.files = parsed.files;
    }
    if (route.query) ctx.query = parseQuery(route.query, ctx.url) as RouteContext["query"];
    return await route.handler(ctx);
  } catch (error) {
    return toErrorResponse(error, ctx.requestId, route.plane);
  }
}
