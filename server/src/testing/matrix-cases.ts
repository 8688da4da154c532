import type { RouteDef } from "../http/route.js";
import { SCOPE_VARIANTS, toBasic, toPathResources, type ResourceKind, type Resources, type ScopeVariant, type Tenant } from "./matrix-world.js";

/** Credentials a matrix case sends, always on behalf of tenant A (or nothing, or garbage). */
export type Cred =
  | `bearer:${ScopeVariant}`
  | "missing"
  | "malformed-bearer"
  | "unknown-token"
  | "expired-token"
  | "app-basic"
  | "admin-key"
  | "wrong-secret"
  | "unknown-app"
  | "basic-no-colon"
  | "basic-garbage";

/** What DESIGN §3 says must come back. */
export type Expectation =
  | { kind: "unauthenticated"; scheme: "Bearer" | "Basic" }
  | { kind: "forbidden"; code: "account_mismatch" | "insufficient_scope"; scope?: string }
  | { kind: "not_found"; tenancy: boolean }
  | { kind: "allowed" };

/** One request of the matrix. `path` is whose account the URL names; `ids` whose resources it names. */
export interface MatrixCase {
  name: string;
  route: RouteDef;
  cred: Cred;
  path: "own" | "other";
  ids: "own" | "other" | "mixed";
  expect: Expectation;
}

/** A valid body per operation, and the resources it names. Operations missing here are sent without a body. */
export const BODIES: Record<string, { refs?: ResourceKind[]; body: (r: Resources, tag: string) => unknown }> = {
  "POST /v1/accounts/:account_id/products": { body: (_r, tag) => ({ title: `Fresh ${tag}`, price: 3, product_type: "service" }) },
  "PATCH /v1/accounts/:account_id/products/:id": { body: (_r, tag) => ({ title: `Renamed ${tag}` }) },
  "POST /v1/accounts/:account_id/pages": { refs: ["product"], body: (r) => ({ product_id: r.product }) },
  "PATCH /v1/accounts/:account_id/pages/:id": { body: () => ({ seo_config: { title: "Matrix" } }) },
  "POST /v1/developer/webhook-endpoints": { body: (_r, tag) => ({ url: `http://127.0.0.1:9/new-${tag}`, events: ["page.created"] }) },
  "PATCH /v1/developer/webhook-endpoints/:endpoint_id": { body: () => ({ concurrency_limit: 2 }) },
};

/** `METHOD path`, the key of {@link BODIES}. */
export const routeKey = (route: RouteDef) => `${route.method} ${route.path}`;

/** True when the matrix knows a valid body for `route` (or it takes none), so an allowed call must be a 2xx. */
export const hasKnownBody = (route: RouteDef) => Boolean(BODIES[routeKey(route)]) || route.body === undefined || (route.body.transport === "json" && route.body.optional);

/** The resources a route names, in its path and in its body. */
export function resourcesOf(route: RouteDef): ResourceKind[] {
  return [...toPathResources(route).map((p) => p.kind), ...(BODIES[routeKey(route)]?.refs ?? [])];
}

/** The `Authorization` header of `cred`, as tenant A. */
export function toAuthorization(cred: Cred, a: Tenant, adminKey: string): string | undefined {
  if (cred.startsWith("bearer:")) return `Bearer ${a.tokens[cred.slice(7) as ScopeVariant]}`;
  const values: Record<Exclude<Cred, `bearer:${string}`>, string | undefined> = {
    missing: undefined,
    "malformed-bearer": `Bearer ${a.tokens.all} extra`,
    "unknown-token": `Bearer lp_${"x".repeat(32)}`,
    "expired-token": `Bearer ${a.expiredToken}`,
    "app-basic": a.app.auth,
    "admin-key": `Bearer ${adminKey}`,
    "wrong-secret": toBasic(a.app.id, "lpsk_wrong_secret_value"),
    "unknown-app": toBasic(`app_${"0".repeat(24)}`, a.app.secret),
    "basic-no-colon": `Basic ${Buffer.from(`${a.app.id}${a.app.secret}`).toString("base64")}`,
    "basic-garbage": "Basic !!not*base64!!",
  };
  return values[cred as keyof typeof values];
}

const BEARERS = SCOPE_VARIANTS.map((s) => `bearer:${s}` as const);
const ACCOUNT_BAD: Cred[] = ["missing", "malformed-bearer", "unknown-token", "expired-token", "app-basic", "admin-key"];
const APP_BAD: Cred[] = ["missing", "wrong-secret", "unknown-app", "basic-no-colon", "basic-garbage"];

function idVariants(route: RouteDef): MatrixCase["ids"][] {
  const named = resourcesOf(route);
  if (named.length === 0) return ["own"];
  return named.length > 1 ? ["own", "other", "mixed"] : ["own", "other"];
}

function expectAccount(route: RouteDef, cred: Cred, path: MatrixCase["path"], ids: MatrixCase["ids"]): Expectation {
  if (!cred.startsWith("bearer:")) return { kind: "unauthenticated", scheme: "Bearer" };
  if (path === "other") return { kind: "forbidden", code: "account_mismatch" };
  const scope = cred.slice(7);
  if (scope !== "all" && scope !== route.scope) return { kind: "forbidden", code: "insufficient_scope", scope: route.scope };
  return ids === "own" ? { kind: "allowed" } : { kind: "not_found", tenancy: true };
}

function expectApp(cred: Cred, ids: MatrixCase["ids"]): Expectation {
  // A bearer token (an account's, or the admin key) names the other plane: that plane has no such route.
  if (cred.startsWith("bearer:") || cred === "admin-key" || cred === "malformed-bearer") return { kind: "not_found", tenancy: false };
  if (cred !== "app-basic") return { kind: "unauthenticated", scheme: "Basic" };
  return ids === "own" ? { kind: "allowed" } : { kind: "not_found", tenancy: true };
}

/**
 * Every case of the isolation matrix for the account and developer planes of `routes`: each scope variant
 * and each bad credential, on the caller's own and another account, naming its own, another tenant's, or
 * (with two ids) a mix of resources.
 */
export function buildMatrix(routes: RouteDef[]): MatrixCase[] {
  const cases: MatrixCase[] = [];
  const add = (c: Omit<MatrixCase, "name">) => {
    const where = c.route.plane === "account" ? `${c.path} account, ` : "";
    cases.push({ ...c, name: `${c.cred} on ${where}${c.ids} ids → ${toLabel(c.expect)}` });
  };
  for (const route of routes) {
    if (route.plane === "account") {
      for (const path of ["own", "other"] as const) {
        for (const cred of BEARERS) for (const ids of idVariants(route)) add({ route, cred, path, ids, expect: expectAccount(route, cred, path, ids) });
        for (const cred of ACCOUNT_BAD) add({ route, cred, path, ids: "own", expect: expectAccount(route, cred, path, "own") });
      }
    } else if (route.plane === "app") {
      for (const ids of idVariants(route)) add({ route, cred: "app-basic", path: "own", ids, expect: expectApp("app-basic", ids) });
      for (const cred of [...BEARERS, "admin-key", "malformed-bearer"] as Cred[]) for (const ids of idVariants(route)) add({ route, cred, path: "own", ids, expect: expectApp(cred, ids) });
      for (const cred of APP_BAD) add({ route, cred, path: "own", ids: "own", expect: expectApp(cred, "own") });
    }
  }
  return cases;
}

function toLabel(e: Expectation): string {
  switch (e.kind) {
    case "unauthenticated":
      return `401 (${e.scheme})`;
    case "forbidden":
      return `403 ${e.code}`;
    case "not_found":
      return e.tenancy ? "404 (tenancy)" : "404 (other plane)";
    case "allowed":
      return "allowed";
  }
}
