import { timingSafeEqual } from "node:crypto";
import { assertAccountAccess, isAccountId, LpError, notFound, sha256Hex, type AccountPrincipal, type AppPrincipal } from "@lp/core";
import type { RouteDef, ServerContext } from "./route.js";

const unauthenticated = (message: string) => new LpError("unauthenticated", message);

function bearer(req: Request): string {
  const header = req.headers.get("authorization");
  if (!header) throw unauthenticated("Missing Authorization header; send 'Authorization: Bearer <token>'.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthenticated("Malformed Authorization header; send 'Authorization: Bearer <token>'.");
  return match[1];
}

/**
 * Authenticates a request for its route's plane. Account routes also check the path's account against
 * the token and the route's scope. Developer routes reached with a bearer token are 404: the other
 * plane does not exist for that caller.
 */
export async function authenticate(
  route: RouteDef,
  req: Request,
  params: Record<string, string>,
  ctx: ServerContext,
): Promise<AccountPrincipal | AppPrincipal | null> {
  const grant = ctx.grants?.get(req);
  if (grant) return fitPlane(route, await grant(route, params));
  switch (route.plane) {
    case "none":
      return null;
    case "admin": {
      const given = bearer(req);
      const expected = ctx.settings.adminKey ?? "";
      const ok = timingSafeEqual(Buffer.from(sha256Hex(given), "hex"), Buffer.from(sha256Hex(expected), "hex"));
      if (!ok || !expected) throw unauthenticated("Invalid admin key.");
      return null;
    }
    case "account": {
      if (!isAccountId(params.account_id)) throw notFound("account", params.account_id);
      const principal = await ctx.core.accounts.authenticateToken(bearer(req));
      assertAccountAccess(principal, params.account_id, route.scope!);
      return principal;
    }
    case "app": {
      const header = req.headers.get("authorization") ?? "";
      if (/^Bearer\s/i.test(header)) throw new LpError("not_found", "No such route on the account plane.", { resource: "route" });
      const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
      if (!match) throw unauthenticated("Missing or malformed credentials; use HTTP Basic with application_id:client_secret.");
      const decoded = Buffer.from(match[1], "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon < 1) throw unauthenticated("Malformed Basic credentials; expected application_id:client_secret.");
      return ctx.core.accounts.authenticateApp(decoded.slice(0, colon), decoded.slice(colon + 1));
    }
  }
}

/**
 * A principal of the route's plane, or a 401: handlers are typed by plane (`defineRoute`) and read the
 * principal without a check, so whatever grants one (the dashboard) must grant the right kind.
 */
function fitPlane(route: RouteDef, principal: AccountPrincipal | AppPrincipal | null): AccountPrincipal | AppPrincipal | null {
  const expected = route.plane === "account" || route.plane === "app" ? route.plane : null;
  if ((principal?.kind ?? null) !== expected) throw unauthenticated(`This route needs ${expected ? `an ${expected} principal` : "no principal"}.`);
  return principal;
}
