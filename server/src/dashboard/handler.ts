import { timingSafeEqual } from "node:crypto";
import { sha256Hex } from "@lp/core";
import type { H3, H3Event, HTTPResponse } from "h3";
import type { ServerContext } from "../http/route.js";
import { sessionCookie, csrfMatches, type DashboardSession } from "./access.js";
import { createDashboardApi } from "./api.js";
import { htmlMessage, isLoopbackRequest, isSameOrigin, jsonError, withSecurityHeaders } from "./guard.js";
import type { DashboardHub } from "./hub.js";
import { createStaticFiles } from "./static.js";
import { openEventStream } from "./stream.js";

/**
 * Everything under `/_dashboard`: login, the page and its files, and the JSON API the page calls.
 * Loaded on the first dashboard request (see mount.ts).
 */
export function createDashboardHandler(app: H3, server: ServerContext, hub: DashboardHub) {
  const files = createStaticFiles();
  const api = createDashboardApi(app, server, hub);

  async function dispatch(event: H3Event): Promise<Response | HTTPResponse> {
    const path = event.url.pathname;
    const method = event.req.method;
    if (!isLoopbackRequest(event)) return htmlMessage(403, "Dashboard refused", "The dashboard answers on loopback addresses only.");

    if (path === "/_dashboard" || path === "/_dashboard/index.html") return new Response(null, { status: 303, headers: { location: "/_dashboard/" } });
    if (path.startsWith("/_dashboard/assets/") && (method === "GET" || method === "HEAD")) {
      return (await files.asset(path.slice("/_dashboard/assets/".length))) ?? htmlMessage(404, "Not found", "No such dashboard file.");
    }
    if (path === "/_dashboard/favicon.svg" && (method === "GET" || method === "HEAD")) return files.favicon();
    if (path === "/_dashboard/login-tokens" && method === "POST") return mintLogin(event);
    if (path === "/_dashboard/login" && method === "GET") return login(event);

    const session = await hub.access.sessionOf(event.req.headers.get("cookie"));
    if (path === "/_dashboard/" && method === "GET") {
      if (!session) return htmlMessage(401, "Log in to the lp dashboard", "Open the one-time login URL that lp serve printed, or run `lp dashboard` for a new one.");
      return files.index(session.csrf);
    }
    if (!path.startsWith("/_dashboard/api/")) return htmlMessage(404, "Not found", "No such dashboard page.");
    if (!session) {
      const refused = jsonError(401, "unauthenticated", "No dashboard session; open a login URL from `lp dashboard`.");
      // Tells the page that its session is gone, as opposed to a relayed API call answering 401.
      refused.headers.set("lp-dashboard-session", "none");
      return refused;
    }
    if (method !== "GET" && !checkCsrf(event, session)) return jsonError(403, "forbidden", "Missing or wrong CSRF token.");
    if (path === "/_dashboard/api/events" && method === "GET") return openEventStream(event, hub);
    if (path === "/_dashboard/api/session" && method === "GET") return Response.json({ data: { active: true } });
    if (path === "/_dashboard/api/logout" && method === "POST") {
      await hub.access.logout(event.req.headers.get("cookie"));
      return new Response(null, { status: 204, headers: { "set-cookie": `${sessionCookie("")}; Max-Age=0` } });
    }
    return api.handle(event, path.slice("/_dashboard/api".length));
  }

  function checkCsrf(event: H3Event, session: DashboardSession): boolean {
    return isSameOrigin(event) && csrfMatches(session, event.req.headers.get("x-csrf-token"));
  }

  /** `lp dashboard`: a fresh login URL for whoever holds the admin key (in a header, never the URL). */
  async function mintLogin(event: H3Event): Promise<Response> {
    const header = event.req.headers.get("authorization") ?? "";
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? "";
    const expected = server.settings.adminKey ?? "";
    const ok = timingSafeEqual(Buffer.from(sha256Hex(given), "hex"), Buffer.from(sha256Hex(expected), "hex"));
    if (!ok || !expected) return jsonError(401, "unauthenticated", "Invalid admin key.");
    const url = new URL(`/_dashboard/login?token=${await hub.access.mintLogin()}`, event.url);
    return Response.json({ data: { url: url.pathname + url.search } }, { status: 201 });
  }

  /** Trades a one-time login token for a session cookie, then drops the token from the address bar. */
  async function login(event: H3Event): Promise<Response> {
    const token = event.url.searchParams.get("token") ?? "";
    const redeemed = token.length > 0 && token.length < 200 ? await hub.access.redeem(token) : null;
    if (!redeemed) return htmlMessage(401, "Login link used or expired", "Each login URL works once. Run `lp dashboard` for a new one.");
    return new Response(null, { status: 303, headers: { location: "/_dashboard/", "set-cookie": sessionCookie(redeemed.cookie) } });
  }

  return async (event: H3Event): Promise<Response | HTTPResponse> => {
    const response = await dispatch(event).catch((): Response | HTTPResponse => jsonError(500, "internal_error", "The dashboard failed on this request."));
    return withSecurityHeaders(response);
  };
}
