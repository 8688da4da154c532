import { defineRoute, type RouteDef, type ServerContext } from "../http/route.js";
import { json, type RouteResponse } from "../http/respond.js";

/**
 * Liveness and readiness. Ready means storage answers a read. On Redis, liveness reads too: a process
 * whose Redis is down cannot answer anything, and a load balancer should hear that (503, `Retry-After: 1`).
 * While the storage refuses writes (a full or read-only disk, Redis at maxmemory) both answer 200 with
 * `"status": "degraded"` and the reason: the process is alive and serves reads; a check can read the body.
 */
export const healthRoutes: RouteDef[] = [
  defineRoute({
    method: "GET",
    path: "/healthz",
    plane: "none",
    internal: true,
    handler: async ({ server }) => {
      const storage = server.core.stores.kind;
      if (storage !== "redis") return json(statusOf(server, "ok"));
      try {
        await server.core.stores.data.hasItem("meta:cursor_key");
        return json(statusOf(server, "ok"));
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
        return json(statusOf(server, "ready"));
      } catch {
        return unavailable(server.core.stores.kind);
      }
    },
  }),
];

/** `ok`/`ready`, or `degraded` with the storage fault under way (reason, since when, writes refused). */
function statusOf(server: ServerContext, healthy: "ok" | "ready") {
  const storage = server.core.stores.kind;
  const fault = server.core.storageHealth.state();
  if (!fault) return { status: healthy, storage };
  return { status: "degraded", storage, reason: fault.reason, writes: "refused", since: fault.since, writes_refused: fault.refused };
}

const unavailable = (storage: string): RouteResponse => json({ status: "unavailable", storage }, 503, { "retry-after": "1" });
