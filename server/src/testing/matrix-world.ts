import { SCOPES, sha256Hex, type Scope, type TokenRecord } from "@lp/core";
import type { RouteDef } from "../http/route.js";
import type { TestApp } from "./test-app.js";
// The repository is not exported from @lp/core: reached by path, as tests reach the core's internals.
import { createAccountRepository } from "../../../core/src/accounts/account-repository.js";

/** A token's scopes in the matrix: one scope, every scope, or none at all. */
export type ScopeVariant = Scope | "all" | "none";

/** Every scope variant the matrix tries. */
export const SCOPE_VARIANTS: readonly ScopeVariant[] = [...SCOPES, "all", "none"];

/** One account with a token per scope variant, an expired token, and a partner application installed on it. */
export interface Tenant {
  account: string;
  tokens: Record<ScopeVariant, string>;
  expiredToken: string;
  app: { id: string; secret: string; auth: string };
}

/** The kinds of resource a path or a body can name. */
export type ResourceKind = "product" | "page" | "job" | "deployment" | "endpoint" | "delivery";

/** Ids of one tenant's resources, and every value that must never reach another tenant. */
export type Resources = Partial<Record<ResourceKind, string>> & { markers: string[] };

const DEPENDS: Record<ResourceKind, ResourceKind[]> = {
  product: [],
  page: ["product"],
  job: ["page"],
  deployment: ["page"],
  endpoint: [],
  delivery: ["endpoint"],
};

/** Which resource a path parameter names, keyed by the segment before it and its name. */
const PARAM_RESOURCES: Record<string, ResourceKind> = {
  "products/:id": "product",
  "pages/:id": "page",
  "jobs/:jobId": "job",
  "deployments/:deploymentId": "deployment",
  "webhook-endpoints/:endpoint_id": "endpoint",
  "deliveries/:delivery_id": "delivery",
};

/** Basic credentials of an application. */
export const toBasic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

/**
 * The resource kinds the path parameters of `route` name, in order. Throws on a parameter it does not
 * know, so a route added with a new parameter fails loudly until this table learns it.
 */
export function toPathResources(route: RouteDef): { name: string; kind: ResourceKind }[] {
  const parts = route.path.split("/");
  const out: { name: string; kind: ResourceKind }[] = [];
  parts.forEach((part, i) => {
    if (!part.startsWith(":") || part === ":account_id") return;
    const kind = PARAM_RESOURCES[`${parts[i - 1]}/${part}`];
    if (!kind) throw new Error(`matrix: no fixture for ${part} in ${route.path}; add it to PARAM_RESOURCES in matrix-world.ts`);
    out.push({ name: part.slice(1), kind });
  });
  return out;
}

/** Every kind `kinds` needs, dependencies included. */
export function withDependencies(kinds: Iterable<ResourceKind>): Set<ResourceKind> {
  const out = new Set<ResourceKind>();
  const visit = (kind: ResourceKind) => {
    if (out.has(kind)) return;
    DEPENDS[kind].forEach(visit);
    out.add(kind);
  };
  for (const kind of kinds) visit(kind);
  return out;
}

async function ok(res: Promise<{ status: number; text: string; json: any }>, what: string): Promise<any> {
  const r = await res;
  if (r.status >= 300) throw new Error(`matrix setup: ${what} answered ${r.status} ${r.text}`);
  return r.json?.data;
}

/**
 * Creates an account through the admin API with a token per scope variant (the admin API refuses an empty
 * scope list, so the scopeless token is written as a record, as an import could), an expired token, and
 * an application installed on the account.
 */
export async function createTenant(t: TestApp, account: string): Promise<Tenant> {
  await ok(t.admin("POST", "/_admin/accounts", { account_id: account, page_quota: 10_000 }), "create account");
  const tokens = {} as Record<ScopeVariant, string>;
  for (const variant of SCOPE_VARIANTS) {
    if (variant === "none") continue;
    const scopes = variant === "all" ? [...SCOPES] : [variant];
    tokens[variant] = (await ok(t.admin("POST", "/_admin/tokens", { account_id: account, scopes }), "create token")).token;
  }
  tokens.none = `lp_scopeless_${account.replace(/[^A-Za-z0-9]/g, "")}_0000000000`;
  const record: TokenRecord = { account_id: account, scopes: [], expires_at: null, created_at: t.clock.now().toISOString() };
  await createAccountRepository({ database: t.core.database, clock: t.clock }).createToken(sha256Hex(tokens.none), record);
  const expiredToken = (await ok(t.admin("POST", "/_admin/tokens", { account_id: account, expires_in: 1 }), "create expiring token")).token;
  const app = await ok(t.admin("POST", "/_admin/apps", { name: `app of ${account}`, account_ids: [account] }), "create app");
  return { account, tokens, expiredToken, app: { id: app.application_id, secret: app.client_secret, auth: toBasic(app.application_id, app.client_secret) } };
}

/**
 * Creates the resources of `kinds` (and what they depend on) for `tenant`, named with `tag` so their data
 * is recognisable in a leak. Waits for generation, deployment and webhook work to finish.
 */
export async function createResources(t: TestApp, tenant: Tenant, kinds: Iterable<ResourceKind>, tag: string): Promise<Resources> {
  const need = withDependencies(kinds);
  const res: Resources = { markers: [] };
  const token = tenant.tokens.all;
  const base = `/v1/accounts/${tenant.account}`;
  if (need.has("product")) {
    const title = `Secret ${tag} product`;
    res.product = (await ok(t.call("POST", `${base}/products`, { token, body: { title, price: 12, product_type: "physical" } }), "product")).id;
    res.markers.push(title);
  }
  if (need.has("page")) {
    res.job = (await ok(t.call("POST", `${base}/pages`, { token, body: { product_id: res.product } }), "page")).job_id;
    await t.core.onIdle();
    res.page = (await ok(t.call("GET", `${base}/pages/jobs/${res.job}`, { token }), "job")).page_id;
  }
  if (need.has("deployment")) {
    res.deployment = (await ok(t.call("POST", `${base}/pages/${res.page}/deployments`, { token }), "deployment")).deployment_id;
    await t.core.onIdle();
  }
  const dev = { token: null, headers: { authorization: tenant.app.auth } };
  if (need.has("endpoint")) {
    // Port 9 (discard) refuses the connection at once, so the verification simply fails.
    const url = `http://127.0.0.1:9/hook-${tag}`;
    const endpoint = await ok(t.call("POST", "/v1/developer/webhook-endpoints", { ...dev, body: { url, events: ["product.created"] } }), "endpoint");
    res.endpoint = endpoint.id;
    res.markers.push(url, endpoint.secret);
  }
  if (need.has("delivery")) {
    res.delivery = (await ok(t.call("POST", `/v1/developer/webhook-endpoints/${res.endpoint}/test`, dev), "test delivery")).id;
    await t.core.onIdle();
  }
  // A product.created of a tenant with an endpoint starts a fan-out: it finishes here too, so whatever is
  // taken of the store next (an export of the fixtures, a snapshot) never holds an unfinished one.
  await t.core.onIdle();
  for (const kind of need) res.markers.push(res[kind]!);
  return res;
}
