export { createApp, apiRoutes, type App, type AppOptions } from "./app.js";
export { defineRoute, type RouteDef, type RouteContext, type ServerContext, type ServerSettings } from "./http/route.js";
export { data, list, json, noContent, accepted } from "./http/respond.js";
export { toErrorResponse, STATUS_BY_CODE } from "./http/errors.js";
export { startServer, type ServeOptions, type ServeStorage, type RunningServer } from "./serve.js";
export { isLoopbackHost, toAdminExposureProblem, MIN_NETWORK_ADMIN_KEY_LENGTH } from "./exposure.js";
export { createDashboardHub, type DashboardHub } from "./dashboard/hub.js";
export { toJournalEntry } from "./journal/journal-query.js";
export type { RequestLog, JournalFilter } from "./journal/request-log.js";
