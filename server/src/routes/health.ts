import type { Database } from "@lp/core";
import { defineRoute, type RouteDef, type ServerContext } from "../http/route.js";
import { json, type RouteResponse } from "../http/respond.js";

/**
 * Liveness and readiness. Ready means the database answers a query. On PostgreSQL, liveness queries too: a
 * process whose database server is down or out of reach cannot answer anything, and a load balancer should
 * hear that (503, `Retry-After: 1`); SQLite and memory are in the process, so liveness asks nothing of them.
 * While the storage refuses writes (a full or read-only disk) both answer 200 with `"status": "degraded"` and
 * the reason: the process is alive and serves reads; a check can read the body.
 */
export const healthRoutes: RouteDef[] = [
  defineRoute({
    method: "GET",
    path: "/healthz",
    plane: "none",
    internal: true,
    handler: async ({ server }) => {
      const { database } = server.core;
      if (database.kind !== "postgres") return json(statusOf(server, "ok"));
      return (await answers(database)) ? json(statusOf(server, "ok")) : unavailable(database.kind);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/readyz",
    plane: "none",
    internal: true,
    handler: async ({ server }) => {
      const { database } = server.core;
      return (await answers(database)) ? json(statusOf(server, "ready")) : unavailable(database.kind);
    },
  }),
];

/** Whether the database runs a query: the cheapest there is, which reads no table. */
async function answers(database: Database): Promise<boolean> {
  try {
    await database.db.selectNoFrom((eb) => eb.lit(1).as("one")).execute();
    return true;
  } catch {
    return false;
  }
}

/** `ok`/`ready`, or `degraded` with the storage fault under way (reason, since when, writes refused). */
function statusOf(server: ServerContext, healthy: "ok" | "ready") {
  const storage = server.core.database.kind;
  const fault = server.core.storageHealth.state();
  if (!fault) return { status: healthy, storage };
  return { status: "degraded", storage, reason: fault.reason, writes: "refused", since: fault.since, writes_refused: fault.refused };
}

const unavailable = (storage: string): RouteResponse => json({ status: "unavailable", storage }, 503, { "retry-after": "1" });
