import type { RouteDef } from "../http/route.js";
import type { Resources, Tenant } from "./matrix-world.js";
import type { TestApp } from "./test-app.js";

/** Values for the parameters of the public routes (plane "none"): media, sites, builder. */
export interface PublicFixtures {
  account: string;
  product: string;
  page: string;
  slug: string;
  mediaPath: string;
  /** The signed query of the page's `builder_url`, without which the builder preview is a 404. */
  builderQuery: string;
}

const PUBLIC_PARAMS: Record<string, (f: PublicFixtures) => string> = {
  ":account_id": (f) => f.account,
  ":file": (f) => `${f.product}.svg`,
  "**:path": (f) => f.mediaPath,
  ":slug": (f) => f.slug,
  ":page_id": (f) => f.page,
};

/** Finds the slug of a deployed page and a stored media file of tenant `a`. */
export async function loadPublicFixtures(t: TestApp, a: Tenant, res: Resources): Promise<PublicFixtures> {
  const page = await t.call("GET", `/v1/accounts/${a.account}/pages/${res.page}`, { token: a.tokens.all });
  const mediaPath = (await t.core.media.paths()).find((path) => /\.(svg|png)$/.test(path));
  if (!page.json?.data?.slug || !mediaPath) throw new Error(`matrix setup: no deployed page or media (${page.status})`);
  const builderQuery = new URL(page.json.data.builder_url).search;
  return { account: a.account, product: res.product!, page: res.page!, slug: page.json.data.slug, mediaPath, builderQuery };
}

/** The value of one parameter (`:slug`, `**:path`) of a public route. Throws on one it does not know. */
export function toPublicParam(param: string, f: PublicFixtures, path: string): string {
  const fill = PUBLIC_PARAMS[param];
  if (!fill) throw new Error(`matrix: no public fixture for ${param} in ${path}; add it to PUBLIC_PARAMS in matrix-public.ts`);
  return fill(f);
}

/**
 * The concrete path of a public route, with the builder preview's signed query. Throws on a parameter it
 * does not know, so new routes are taught here.
 */
export function toPublicPath(route: RouteDef, f: PublicFixtures): string {
  const path = route.path.replace(/\*\*:\w+|:\w+/g, (param) => toPublicParam(param, f, route.path));
  return route.path.startsWith("/builder/") ? `${path}${f.builderQuery}` : path;
}

/** Valid bodies of the admin operations; the import body is read from the export at run time. */
export const ADMIN_BODIES: Record<string, (t: TestApp) => Promise<unknown> | unknown> = {
  "POST /_admin/accounts": () => ({}),
  "POST /_admin/tokens": (t) => ({ account_id: t.creds.account_id, scopes: ["pages:read"] }),
  "POST /_admin/apps": (t) => ({ name: "matrix app", account_ids: [t.creds.account_id] }),
  "POST /_admin/import": async (t) => (await t.admin("GET", "/_admin/export")).json,
  // Moves the clock of an app started with `manualClock` (a system clock refuses to move).
  "POST /_admin/clock": () => ({ advance: "1s" }),
  "POST /_admin/webhook-endpoints/:endpoint_id/replay": () => ({ since: "1h" }),
};

/**
 * The concrete path of an admin route: its parameters filled with records made here. A replay needs an
 * endpoint that takes deliveries: one whose verification could not be answered, paused (a paused endpoint
 * holds what it is sent). Throws on a parameter it does not know, so new routes are taught here.
 */
export async function toAdminPath(route: RouteDef, t: TestApp): Promise<string> {
  if (!route.path.includes(":")) return route.path;
  if (route.path === "/_admin/webhook-endpoints/:endpoint_id/replay") {
    const auth = { authorization: `Basic ${Buffer.from(`${t.creds.application_id}:${t.creds.client_secret}`).toString("base64")}` };
    const made = await t.call("POST", "/v1/developer/webhook-endpoints", { token: null, headers: auth, body: { url: "http://127.0.0.1:9/hooks", events: ["product.created"] } });
    const paused = await t.call("PATCH", `/v1/developer/webhook-endpoints/${made.json.data.id}`, { token: null, headers: auth, body: { status: "paused" } });
    if (paused.status !== 200) throw new Error(`matrix: pausing an endpoint for ${route.path}: ${paused.status} ${paused.text}`);
    return route.path.replace(":endpoint_id", made.json.data.id);
  }
  throw new Error(`matrix: no admin fixture for ${route.path}; add it to toAdminPath in matrix-public.ts`);
}

/** Wrong credentials for the admin API, each as an `Authorization` value (undefined: none). */
export function adminDenials(t: TestApp): [string, string | undefined][] {
  return [
    ["no credentials", undefined],
    ["a malformed bearer header", "Bearer"],
    ["a wrong admin key", "Bearer lpadm_wrong_key"],
    ["an account token with every scope", `Bearer ${t.creds.token}`],
    ["the dev application's Basic credentials", `Basic ${Buffer.from(`${t.creds.application_id}:${t.creds.client_secret}`).toString("base64")}`],
    ["the admin key sent as Basic", `Basic ${Buffer.from(`admin:${t.adminKey}`).toString("base64")}`],
  ];
}
