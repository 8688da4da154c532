import type { H3, H3Event, HTTPResponse } from "h3";
import type { ServerContext } from "../http/route.js";
import type { DashboardHub } from "./hub.js";

/**
 * Routes `/_dashboard` and everything under it to the dashboard. Its handler (routes, static files,
 * event stream) is imported on the first such request, so a server nobody opens it on never loads it.
 */
export function mountDashboard(app: H3, server: ServerContext, hub: DashboardHub): void {
  let handler: Promise<(event: H3Event) => Promise<Response | HTTPResponse>> | undefined;
  const load = () => (handler ??= import("./handler.js").then((m) => m.createDashboardHandler(app, server, hub)));
  const route = async (event: H3Event) => (await load())(event);
  app.all("/_dashboard", route);
  app.all("/_dashboard/**", route);
}
