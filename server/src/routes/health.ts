import { defineRoute, type RouteDef } from "../http/route.js";
import { json, type RouteResponse } from "../http/respond.js";

/**
 * Liveness and readiness. Ready means storage answers a read. On Redis, liveness reads too: a process
 * whose Redis is down cannot answer anything, and a load balancer should hear that (503, `Retry-After: 1`).
 */
export const healthRoutes: RouteDef[] = [
  defineRoute({
    method: "GET",
    path: "/healthz",
    plane: "none",
    internal: true,
    handler: async ({ server }) => {
      const storage = server.core.stores.kind;
      if (storage !== "redis") return json({ status: "ok", storage });
      try {
        await server.core.stores.data.hasItem("meta:cursor_key");
        return json({ status: "ok", storage });
      } catch {
        return unavailable(storage);
      }
    },
  }),
  defineRoute({
    method: "GET",
    path: "/readyz",
    plane: "none",
    internal: true,
    handler: async ({ server }) => {
      try {
        await server.core.stores.data.hasItem("meta:cursor_key");
        return json({ status: "ready", storage: server.core.stores.kind });
      } catch {
        return unavailable(server.core.stores.kind);
      }
    },
  }),
];

const unavailable = (storage: string): RouteResponse => json({ status: "unavailable", storage }, 503, { "retry-after": "1" });
