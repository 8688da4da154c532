/**
 * @lp/contract: the shape of every answer lp gives, written once as zod schemas. The core types its views
 * with them, the server documents them in /v1/openapi.json, and @lp/client types its results with them.
 * Nothing here touches storage, queues or HTTP: only zod.
 */
export * from "./common.js";
export * from "./events.js";
export * from "./products.js";
export * from "./pages.js";
export * from "./deployments.js";
export * from "./webhooks.js";
export * from "./admin.js";
export * from "./event-data.js";
