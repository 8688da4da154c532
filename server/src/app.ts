import type { Core } from "@lp/core";
import { LpError } from "@lp/core";
import { H3, type H3Event } from "h3";
import { toErrorResponse } from "./http/errors.js";
import { createAccessLog } from "./http/access-log.js";
import { requestIdOf, toHandler } from "./http/pipeline.js";
import type { RouteDef, ServerContext, ServerSettings } from "./http/route.js";
import { json } from "./http/respond.js";
import { buildOpenApi } from "./openapi/build-openapi.js";
import { adminRoutes } from "./routes/admin.js";
import { healthRoutes } from "./routes/health.js";
import { indexRoutes } from "./routes/index-page.js";
import { mediaRoutes } from "./routes/media.js";
import { productRoutes } from "./routes/products.js";
import { pageRoutes } from "./routes/pages.js";
import { deploymentRoutes } from "./routes/deployments.js";
import { siteRoutes } from "./routes/sites.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { withWebhookDocs } from "./openapi/webhook-schemas.js";
import type { DashboardHub } from "./dashboard/hub.js";
import { mountDashboard } from "./dashboard/mount.js";
import { createRequestLog, type RequestLog } from "./journal/request-log.js";

/** Options of {@link createApp}. */
export interface AppOptions {
  core: Core;
  settings: ServerSettings;
  /**
   * Where the access log goes: called with one or more lines (no final newline), batched per turn of the
   * event loop (`http/access-log.ts`); null turns the log off. Default: stderr.
   */
  log?: ((lines: string) => void) | null;
  afterReset?: () => Promise<void>;
  /** Routes added by later layers (pages, deployments, webhooks, sites). */
  extraRoutes?: RouteDef[];
  /** The dashboard at `/_dashboard` and its request log; served only with an admin key. */
  dashboard?: DashboardHub;
  /** Entries the request journal keeps when there is no dashboard to hold it (default 500). */
  journalCapacity?: number;
}

/** Every route of the API, in one table. */
export function apiRoutes(options: Pick<AppOptions, "settings" | "extraRoutes">): RouteDef[] {
  return [
    ...healthRoutes,
    ...indexRoutes,
    ...productRoutes,
    ...pageRoutes,
    ...deploymentRoutes,
    ...webhookRoutes,
    ...(options.extraRoutes ?? []),
    ...mediaRoutes,
    ...siteRoutes,
    ...(options.settings.adminKey ? adminRoutes : []),
  ];
}

/** Builds the h3 app that serves the `/v1` API, the admin API, media and health checks. */
export function createApp(options: AppOptions) {
  const server: ServerContext = { core: options.core, settings: options.settings, afterReset: options.afterReset, journal: null };
  const dashboard = options.settings.adminKey ? options.dashboard : undefined;
  // The request journal (`/_admin/requests`, the dashboard's request log): one ring, kept while the admin API is on.
  const journal: RequestLog | null = options.settings.adminKey ? (dashboard?.requests ?? createRequestLog(options.journalCapacity)) : null;
  const clock = options.core.clock;
  const sink = options.log === undefined ? (lines: string) => process.stderr.write(`${lines}\n`) : options.log;
  const log = sink ? createAccessLog(sink) : null;
  const routes = apiRoutes(options);
  // Built on first use: generating it costs tens of milliseconds that `lp serve` start-up should not pay.
  let openapi: ReturnType<typeof buildOpenApi> | undefined;
  const openapiDocument = () => (openapi ??= withWebhookDocs(buildOpenApi(routes)));
  // The start time rides on the event's context: a WeakMap keyed by events cost measurable GC per request.
  const started = { get: (event: H3Event) => event.context.startedAt as number | undefined };
  // Timing is read only by the request log and the access log.
  const timed = Boolean(journal || log);
  server.journal = journal;
  const ids = requestIds(options.core);
  // The event of the request `~request` (below) is running: onRequest runs synchronously inside it.
  let current: H3Event | undefined;

  /** What every answer gets on its way out: its request id, the dashboard's request log, the access log. */
  function finish(response: Response, event: H3Event): Response {
    try {
      // Responses of the route pipeline already carry it (http/respond.ts toWire).
      if (!event.context.wireHeaders) response.headers.set("x-request-id", requestIdOf(event));
      if (journal) {
        const ms = performance.now() - (started.get(event) ?? performance.now());
        journal.record(event, response, ms, requestIdOf(event), (event.context.startedOnClock as number | undefined) ?? clock.now().getTime());
      }
      if (log) log.record(event.req.method, event.url.pathname, response.status, performance.now() - (started.get(event) ?? performance.now()), requestIdOf(event));
    } catch {
      // As h3's own onResponse (silent): a failing log never changes the answer.
    }
    return response;
  }

  const app = new H3({
    silent: true,
    allowMalformedURL: true, // a bad escape (`/products/%zz`) is then an id that matches no pattern: a 404 with a request id
    onRequest(event) {
      event.context.requestId = ids.next();
      if (timed) event.context.startedAt = performance.now();
      // The journal's start time follows the server's clock (a manual one too); the duration is real time.
      if (journal) event.context.startedOnClock = clock.now().getTime();
      current = event;
    },
    onError(error, event) {
      const cause = (error as { cause?: unknown }).cause;
      const status = (error as { status?: number }).status;
      // h3's own errors (bad URL encoding) are client errors; anything else is ours.
      if (!(cause instanceof Error) && status && status < 500) {
        return toErrorResponse(new LpError("validation_error", error.message || "Bad request."), requestIdOf(event));
      }
      return toErrorResponse(cause instanceof LpError ? cause : (cause ?? error), requestIdOf(event));
    },
  });

  // h3's `onResponse` hook costs three promise hops per request (Promise.resolve().then(hook).catch().then());
  // the same work runs here after the answer is ready, one hop. `~request` is what both `fetch` (the Node
  // listener) and `request` (tests) call; it creates the event and calls onRequest synchronously.
  const request = app["~request"].bind(app) as (req: Request, context?: unknown) => Response | Promise<Response>;
  (app as unknown as { "~request": typeof request })["~request"] = (req, context) => {
    // Saved and restored: a handler may call the app again (the dashboard's in-process calls).
    const outer = current;
    current = undefined;
    let event: H3Event | undefined;
    let out: Response | Promise<Response>;
    try {
      out = request(req, context);
    } finally {
      event = current as H3Event | undefined;
      current = outer;
    }
    if (!event) return out;
    return out instanceof Promise ? out.then((response) => finish(response, event)) : finish(out, event);
  };

  const handlerOf = (route: RouteDef) => (journal ? withBodyCapture(toHandler(route, server)) : toHandler(route, server));
  for (const route of routes) app.on(route.method, route.path, handlerOf(route));
  for (const route of routes) if (route.method === "GET") app.on("HEAD", route.path, handlerOf(route)); // HEAD is GET without a body
  app.get("/v1/openapi.json", () => json(openapiDocument()));
  if (dashboard) mountDashboard(app, server, dashboard);

  const patterns = routes.map((r) => ({ method: r.method, regex: routeRegexOf(r.path) }));
  patterns.push({ method: "GET", regex: routeRegexOf("/v1/openapi.json") }); // so POST on it is a 405 naming GET
  app.all("/**", (event) => {
    const path = event.url.pathname;
    const allowed = [...new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method))];
    if (allowed.length > 0) {
      return toErrorResponse(
        new LpError("method_not_allowed", `${event.req.method} is not allowed on ${path}; use ${allowed.join(", ")}.`, { allowed }),
        requestIdOf(event),
      );
    }
    return toErrorResponse(new LpError("not_found", `No route matches ${event.req.method} ${path}.`, { resource: "route" }), requestIdOf(event));
  });

  return {
    app,
    routes,
    server,
    /** The request journal; null when the admin API is off. */
    journal,
    /** Writes the access-log lines still buffered (on close). */
    flushLog: () => log?.flush(),
    get openapi() {
      return openapiDocument();
    },
  };
}

/**
 * Request ids (`req_` and 24 hex digits) cut from one hex string of 240 random bytes of the core's id
 * source: one buffer and one hex conversion per 20 requests instead of per request.
 */
function requestIds(core: Core) {
  let hex = "";
  let at = 0;
  return {
    next(): string {
      if (!core.ids) return "req_unknown";
      if (at >= hex.length) {
        hex = core.ids.bytes(240).toString("hex");
        at = 0;
      }
      at += 24;
      return `req_${hex.slice(at - 24, at)}`;
    },
  };
}

/** Keeps a route's response body (a string, by reference) for the dashboard's request log. */
function withBodyCapture(handler: ReturnType<typeof toHandler>): ReturnType<typeof toHandler> {
  return async (event) => {
    const response = await handler(event);
    if (!(response instanceof Response) && typeof response.body === "string") event.context.responseBody = response.body;
    return response;
  };
}

/** A route path (`/v1/accounts/:account_id/products`, `/media/**:path`) as the pattern the 405 logic tests. */
export function toRouteRegex(path: string): RegExp {
  const source = path
    .split("/")
    .map((part) => (part.startsWith("**") ? ".+" : part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}/?$`);
}

// Each path's pattern, made at the first app of the process (a pattern without flags keeps no state between tests).
const routeRegexes = new Map<string, RegExp>();
const routeRegexOf = (path: string): RegExp => {
  let regex = routeRegexes.get(path);
  if (!regex) routeRegexes.set(path, (regex = toRouteRegex(path)));
  return regex;
};

export type App = ReturnType<typeof createApp>;
