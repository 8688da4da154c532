import { expect } from "vitest";
import { expectError, type CallResult } from "./expect-error.js";
import { diffSnapshots, isIdempotencyKey, takeSnapshot } from "./fuzz-snapshot.js";
import { BODIES, hasKnownBody, resourcesOf, routeKey, toAuthorization, type MatrixCase } from "./matrix-cases.js";
import { createResources, toPathResources, type Resources, type Tenant } from "./matrix-world.js";
import type { TestApp } from "./test-app.js";

/** What a matrix run shares: the app, the two tenants and their long-lived resources. */
export interface MatrixWorld {
  t: TestApp;
  a: Tenant;
  b: Tenant;
  sharedA: Resources;
  sharedB: Resources;
}

interface Built {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

let counter = 0;

/** Every secret and id of a tenant that is not a resource: its tokens, its account, its application. */
const tenantMarkers = (x: Tenant) => [x.account, x.app.id, x.app.secret, x.expiredToken, ...Object.values(x.tokens)];

/** The request of case `c`, with `mine` as tenant A's resources and `theirs` as tenant B's. */
function toRequest(world: MatrixWorld, c: MatrixCase, mine: Resources, theirs: Resources, tag: string): Built {
  const named = toPathResources(c.route);
  const account = c.path === "own" ? world.a.account : world.b.account;
  let path = c.route.path.replace(":account_id", account);
  named.forEach(({ name, kind }, i) => {
    const from = c.ids === "own" || (c.ids === "mixed" && i === 0) ? mine : theirs;
    path = path.replace(`:${name}`, from[kind]!);
  });
  const headers: Record<string, string> = {};
  const auth = toAuthorization(c.cred, world.a, world.t.adminKey);
  if (auth) headers.authorization = auth;
  if (c.route.plane === "account" && (c.route.method === "POST" || c.route.method === "PATCH")) headers["idempotency-key"] = `matrix-${tag}`;
  const body = BODIES[routeKey(c.route)]?.body(c.ids === "own" ? mine : theirs, tag);
  return { method: c.route.method, path, headers, body };
}

/** The same request made by the owner of the resources it names (tenant B with every scope). */
function toOwnerRequest(world: MatrixWorld, c: MatrixCase, theirs: Resources, tag: string): Built {
  const built = toRequest(world, { ...c, ids: "other", path: "other" }, theirs, theirs, `${tag}-owner`);
  built.headers.authorization = c.route.plane === "app" ? world.b.app.auth : `Bearer ${world.b.tokens.all}`;
  return built;
}

const send = (t: TestApp, r: Built) => t.call(r.method, r.path, { token: null, headers: r.headers, body: r.body });

/** Asserts that `res` (text and headers) quotes none of `markers`, except values the request itself sent. */
export function expectNoLeak(res: CallResult, markers: string[], request: unknown, label: string): void {
  const sent = JSON.stringify(request);
  const seen = [res.text, ...[...res.headers.entries()].map(([k, v]) => `${k}: ${v}`)].join("\n");
  const leaked = markers.filter((m) => m && !sent.includes(m) && seen.includes(m));
  expect(leaked, `${label} leaked another tenant's data: ${res.text.slice(0, 500)}`).toEqual([]);
}

/** Asserts an allowed call: past authentication and tenancy, and a 2xx when its body is known to be valid. */
function expectAllowed(res: CallResult, c: MatrixCase, label: string): void {
  expect([401, 403, 404], `${label}: ${res.status} ${res.text}`).not.toContain(res.status);
  if (hasKnownBody(c.route)) expect(res.status, `${label}: ${res.text}`).toBeGreaterThanOrEqual(200);
  if (hasKnownBody(c.route)) expect(res.status, `${label}: ${res.text}`).toBeLessThan(300);
  if (res.status < 300 && res.status !== 204) expect(Object.keys(res.json ?? {}), label).toContain("data");
}

/**
 * Runs one case: builds fresh resources when the call may change them, sends it, and checks the status
 * and envelope DESIGN §3 gives, that a denied call changed no stored record, that no response quotes data
 * of a tenant it should not see, and that a tenancy 404 is an ordinary success for the owner.
 */
export async function runCase(world: MatrixWorld, c: MatrixCase): Promise<void> {
  const { t } = world;
  const tag = `m${++counter}`;
  const reaches = c.expect.kind === "allowed" || (c.expect.kind === "not_found" && c.expect.tenancy);
  const fresh = reaches && c.route.method !== "GET";
  const kinds = resourcesOf(c.route);
  const mine = fresh ? await createResources(t, world.a, kinds, `${tag}-a`) : world.sharedA;
  const theirs = fresh ? await createResources(t, world.b, kinds, `${tag}-b`) : world.sharedB;
  const request = toRequest(world, c, mine, theirs, tag);
  const label = `${c.route.method} ${request.path} [${c.name}]`;

  // The work the setup's events started (their deliveries) must be over, or it lands in the diff.
  await t.core.onIdle();
  const before = c.expect.kind === "allowed" ? null : await takeSnapshot(t.core);
  const res = await send(t, request);
  await t.core.onIdle();
  expect(res.headers.get("x-request-id"), label).toMatch(/^req_/);

  const others = [...tenantMarkers(world.b), ...theirs.markers];
  if (c.expect.kind === "allowed") {
    expectAllowed(res, c, label);
    expectNoLeak(res, others, request, label);
    return;
  }
  expectNoLeak(res, [...others, ...tenantMarkers(world.a), ...mine.markers], request, label);
  const after = await takeSnapshot(t.core);
  expect(diffSnapshots(before!, after, res.status === 404 ? isIdempotencyKey : undefined), `${label} wrote records`).toEqual([]);

  switch (c.expect.kind) {
    case "unauthenticated": {
      expectError(res, 401, "unauthenticated");
      expect(res.headers.get("www-authenticate"), label).toMatch(new RegExp(`^${c.expect.scheme} realm=`));
      break;
    }
    case "forbidden": {
      const error = expectError(res, 403, c.expect.code);
      if (c.expect.code === "insufficient_scope") expect(error.details, label).toEqual({ required_scope: c.expect.scope });
      break;
    }
    case "not_found": {
      expectError(res, 404, "not_found");
      if (c.expect.tenancy && c.ids === "other") {
        // The 404 comes from tenancy, not from a bad id: the owner's identical call succeeds.
        const owner = await send(t, toOwnerRequest(world, c, theirs, tag));
        await t.core.onIdle();
        expectAllowed(owner, c, `${label} (as the owner)`);
      }
      break;
    }
  }
}
