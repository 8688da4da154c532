import type { RouteDef } from "../http/route.js";
import type { AuthPick, BodyPick, FuzzSpec, QueryValue } from "./fuzz-request-arb.js";
import { toParamNames } from "./fuzz-request-arb.js";
import { loadPublicFixtures, toPublicParam, type PublicFixtures } from "./matrix-public.js";
import { createResources, createTenant, SCOPE_VARIANTS, toPathResources, type ResourceKind, type Resources, type Tenant } from "./matrix-world.js";
import { createTestApp, type TestApp } from "./test-app.js";

const ALL_KINDS: ResourceKind[] = ["product", "page", "job", "deployment", "endpoint", "delivery"];

/** The fixtures fuzzed requests name: two tenants, their resources, their public pages, and a real cursor. */
export interface FuzzWorld {
  tenants: { own: Tenant; other: Tenant };
  res: { own: Resources; other: Resources };
  pub: { own: PublicFixtures; other: PublicFixtures };
  cursor: string;
  /** The store right after seeding, as `GET /_admin/export` wrote it: importing it puts every fixture back. */
  exported: unknown;
}

/** Creates the fuzz fixtures on a fresh app, and exports them so they can be put back cheaply. */
export async function seedFuzzWorld(t: TestApp): Promise<FuzzWorld> {
  const own = await createTenant(t, "acct_fuzz_a");
  const other = await createTenant(t, "acct_fuzz_b");
  const res = { own: await createResources(t, own, ALL_KINDS, "fuzz-a"), other: await createResources(t, other, ALL_KINDS, "fuzz-b") };
  await createResources(t, own, ["product"], "fuzz-a2"); // a second product, so listings have a next page
  const listed = await t.call("GET", `/v1/accounts/${own.account}/products?per_page=1`, { token: own.tokens.all });
  const pub = { own: await loadPublicFixtures(t, own, res.own), other: await loadPublicFixtures(t, other, res.other) };
  const exported = (await t.admin("GET", "/_admin/export")).json;
  return { tenants: { own, other }, res, pub, cursor: listed.json?.pagination?.next_cursor ?? "none", exported };
}

/** Puts the store back as it was right after seeding, through `POST /_admin/import`. */
export async function restoreWorld(t: TestApp, world: FuzzWorld): Promise<void> {
  const res = await t.admin("POST", "/_admin/import", world.exported);
  if (res.status !== 200) throw new Error(`fuzz: restoring the fixtures failed: ${res.status} ${res.text.slice(0, 300)}`);
  // An import picks up what the imported store left unfinished (fan-outs, due deliveries) in the background:
  // that work belongs to the restore, not to the next fuzzed request, whose writes are checked.
  await t.core.onIdle();
}

/** True when `path` names one of the fixtures (so a successful DELETE of it calls for a restore). */
export function namesFixture(world: FuzzWorld, path: string): boolean {
  return (["own", "other"] as const).some((side) => ALL_KINDS.some((k) => world.res[side][k] && path.includes(world.res[side][k]!)));
}

/** A request ready for `app.request()`. */
export interface BuiltRequest {
  method: string;
  path: string;
  init: RequestInit;
  /** What was sent, for failure messages. */
  summary: string;
}

function toAuthorization(route: RouteDef, auth: AuthPick, scopeIndex: number, world: FuzzWorld, adminKey: string): string | null {
  const { own, other } = world.tenants;
  if (typeof auth === "object") return auth.raw;
  if (auth === "none") return null;
  if (auth === "scoped") return `Bearer ${own.tokens[SCOPE_VARIANTS[scopeIndex % SCOPE_VARIANTS.length]]}`;
  const byPlane: Record<RouteDef["plane"], Record<Exclude<AuthPick, object | "none" | "scoped">, string | null>> = {
    account: { valid: `Bearer ${own.tokens.all}`, "other-tenant": `Bearer ${other.tokens.all}`, "cross-plane": own.app.auth },
    app: { valid: own.app.auth, "other-tenant": other.app.auth, "cross-plane": `Bearer ${own.tokens.all}` },
    admin: { valid: `Bearer ${adminKey}`, "other-tenant": `Bearer ${own.tokens.all}`, "cross-plane": own.app.auth },
    none: { valid: null, "other-tenant": `Bearer ${other.tokens.all}`, "cross-plane": own.app.auth },
  };
  return byPlane[route.plane][auth];
}

function toParam(route: RouteDef, name: string, pick: FuzzSpec["params"][number], world: FuzzWorld): string {
  if ("literal" in pick) return pick.literal;
  const side = pick.fixture;
  if (route.plane === "none") return toPublicParam(name, world.pub[side], route.path);
  if (name === ":account_id") return world.tenants[side].account;
  const kind = toPathResources(route).find((p) => `:${p.name}` === name)!.kind;
  return world.res[side][kind] ?? "missing";
}

function toQueryValue(value: QueryValue, world: FuzzWorld): string {
  if (typeof value === "string") return value;
  if (value.cursor === "real") return world.cursor;
  const chars = [...world.cursor];
  chars[chars.length >> 1] = chars[chars.length >> 1] === "A" ? "B" : "A";
  return chars.join("");
}

const HUGE_JSON = JSON.stringify({ title: "x".repeat(1024 * 1024 + 10) });

/** Replaces the `@@own.product`-style placeholders of generated bodies with the fixtures of the moment. */
function toFixtureText(text: string, world: FuzzWorld): string {
  return text.replace(/@@(own|other)\.(account|product)/g, (_m, side: "own" | "other", kind: string) =>
    kind === "account" ? world.tenants[side].account : (world.res[side].product ?? "missing"),
  );
}

function toBody(body: BodyPick, world: FuzzWorld): { body?: BodyInit; type?: string | null } {
  switch (body.kind) {
    case "none":
      return {};
    case "json":
      return { body: toFixtureText(JSON.stringify(body.value) ?? "", world), type: body.type };
    case "text":
      return { body: body.text, type: body.type };
    case "huge":
      return { body: HUGE_JSON, type: body.type };
    case "multipart": {
      const form = new FormData();
      for (const [k, v] of body.fields) form.append(k, toFixtureText(v, world));
      for (const f of body.files) form.append(f.field, new File([f.bytes as Uint8Array<ArrayBuffer>], f.name, { type: f.type }));
      return { body: form, type: undefined };
    }
  }
}

/** Turns a symbolic spec into a concrete request against the fixtures as they are now. */
export function toRequest(route: RouteDef, spec: FuzzSpec, world: FuzzWorld, adminKey: string): BuiltRequest {
  const names = toParamNames(route.path);
  let i = 0;
  let path = route.path.replace(/\*\*:\w+|:\w+/g, () => {
    const name = names[i];
    return toParam(route, name, spec.params[i++], world);
  });
  const query = new URLSearchParams(spec.query.pairs.map(([k, v]) => [k, toQueryValue(v, world)]));
  const search = [query.toString(), spec.query.raw].filter(Boolean).join("&");
  if (search) path += `?${search}`;
  const headers: Record<string, string> = {};
  const authorization = toAuthorization(route, spec.auth, spec.scopeIndex, world, adminKey);
  if (authorization !== null) headers.authorization = authorization;
  if (spec.idempotencyKey !== null) headers["idempotency-key"] = spec.idempotencyKey;
  if (spec.simulate !== null) headers["lp-simulate"] = spec.simulate;
  const { body, type } = spec.method === "GET" ? {} : toBody(spec.body, world);
  if (type) headers["content-type"] = type;
  const summary = `${spec.method} ${path.slice(0, 300)} headers=${JSON.stringify(headers).slice(0, 300)} body=${spec.body.kind}:${typeof body === "string" ? body.slice(0, 300) : ""}`;
  return { method: spec.method, path, init: { method: spec.method, headers, body }, summary };
}

/**
 * The app the fuzz suites attack: no request leaves the process (every webhook url "refuses the
 * connection"), and background failures (generation, deployments, webhooks) are collected into `errors`
 * rather than logged, because they are bugs too.
 */
export async function createFuzzApp(): Promise<{ t: TestApp; errors: string[] }> {
  const errors: string[] = [];
  const onError = (what: string, error: unknown) => void errors.push(`${what}: ${(error as Error)?.stack ?? error}`);
  const t = await createTestApp({
    coreDeps: {
      onBackgroundError: onError,
      fetch: async () => {
        throw new TypeError("fetch failed: the fuzz suite has no network");
      },
      webhooks: { onError },
    },
  });
  return { t, errors };
}
