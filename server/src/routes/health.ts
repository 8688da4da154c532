import { defineRoute, type RouteDef } from "../http/route.js";
import { json } from "../http/respond.js";

/** Liveness and readiness. Ready means storage answers a read. */
export const healthRoutes: RouteDef[] = [
  defineRoute({ method: "GET", path: "/healthz", plane: "none", internal: true, handler: () => json({ status: "ok" }) }),
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
        return json({ status: "unavailable" }, 503);
      }
    },
  }),
];
