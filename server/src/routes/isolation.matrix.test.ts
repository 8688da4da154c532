import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteDef } from "../http/route.js";
import { expectError } from "../testing/expect-error.js";
import { diffSnapshots, takeSnapshot } from "../testing/fuzz-snapshot.js";
import { buildMatrix, resourcesOf, routeKey, type MatrixCase } from "../testing/matrix-cases.js";
import { ADMIN_BODIES, adminDenials, loadPublicFixtures, toAdminPath, toPublicPath, type PublicFixtures } from "../testing/matrix-public.js";
import { expectNoLeak, runCase, type MatrixWorld } from "../testing/matrix-run.js";
import { createResources, createTenant, withDependencies } from "../testing/matrix-world.js";
import { createTestApp, defaultTestStorage, type TestApp } from "../testing/test-app.js";

/*
 * The isolation matrix (DESIGN §3, §4). Cases are generated from the route table the app serves, so a
 * route added later is covered as soon as it exists (or fails loudly here until its parameters are known).
 */
const t = await createTestApp();
const cases = buildMatrix(t.routes);
const groups = t.routes
  .filter((r) => r.plane === "account" || r.plane === "app")
  .map((route) => ({ key: routeKey(route), route, cases: cases.filter((c) => c.route === route) }));
const world = {} as MatrixWorld;
let fixtures: PublicFixtures;
const lateTitles: string[] = [];

beforeAll(async () => {
  world.t = t;
  world.a = await createTenant(t, "acct_matrix_a");
  world.b = await createTenant(t, "acct_matrix_b");
  const kinds = withDependencies(t.routes.filter((r) => r.plane === "account" || r.plane === "app").flatMap(resourcesOf));
  kinds.add("page").add("deployment"); // the public routes serve a deployed page
  world.sharedA = await createResources(t, world.a, kinds, "shared-a");
  world.sharedB = await createResources(t, world.b, kinds, "shared-b");
  // Products made after both endpoints exist: each tenant's event reaches its own application's endpoint
  // (as a skipped delivery, the endpoint being unverified), and must never reach the other one.
  for (const [tenant, shared, tag] of [[world.a, world.sharedA, "late-a"], [world.b, world.sharedB, "late-b"]] as const) {
    const late = await createResources(t, tenant, ["product"], tag);
    shared.markers.push(...late.markers);
    lateTitles.push(late.markers[0]);
  }
  await t.core.onIdle();
  fixtures = await loadPublicFixtures(t, world.a, world.sharedA);
  t.clock.advance(5_000); // past the one-second tokens of createTenant
});
afterAll(() => t.close());

describe("isolation matrix: route table", () => {
  it("covers every account and developer route with and without its required scope", () => {
    for (const { key, route, cases: mine } of groups) {
      expect(mine.length, key).toBeGreaterThan(0);
      if (route.plane !== "account") continue;
      expect(route.scope, `${key} names its scope`).toBeTruthy();
      expect(mine.some((c) => c.cred === `bearer:${route.scope}` && c.expect.kind === "allowed"), key).toBe(true);
      expect(mine.some((c) => c.expect.kind === "forbidden" && c.expect.code === "insufficient_scope"), key).toBe(true);
    }
    expect(cases.length).toBeGreaterThan(500);
  });

  it("delivers an account's events to its own application's endpoint only", async () => {
    const deliveries = async (auth: string, endpoint: string) =>
      (await t.call("GET", `/v1/developer/webhook-endpoints/${endpoint}/deliveries`, { token: null, headers: { authorization: auth } })).text;
    const [ofA, ofB] = [await deliveries(world.a.app.auth, world.sharedA.endpoint!), await deliveries(world.b.app.auth, world.sharedB.endpoint!)];
    expect(ofA).toContain(lateTitles[0]);
    expect(ofA).not.toContain(lateTitles[1]);
    expect(ofB).toContain(lateTitles[1]);
    expect(ofB).not.toContain(lateTitles[0]);
  });
});

describe.each(groups)("isolation matrix: $key", ({ cases: mine }) => {
  it.each(mine)("$name", async (c: MatrixCase) => runCase(world, c));
});

describe("isolation matrix: public routes (plane none)", () => {
  const publicRoutes = t.routes.filter((r) => r.plane === "none");
  const garbage = ["Bearer lp_not_a_real_token_000000", "Basic Zm9vOmJhcg==", `Bearer ${t.adminKey}`];

  it.each(publicRoutes.map((route) => ({ key: routeKey(route), route })))("$key needs no credentials", async ({ route }: { route: RouteDef }) => {
    const path = toPublicPath(route, fixtures);
    const bare = await t.call(route.method, path, { token: null });
    expect([401, 403], `${path}: ${bare.text.slice(0, 200)}`).not.toContain(bare.status);
    expect(bare.status, `${path} is served`).toBeLessThan(route.method === "GET" ? 300 : 500);
    expect(bare.headers.get("x-request-id")).toMatch(/^req_/);
    for (const authorization of garbage) {
      const res = await t.call(route.method, path, { token: null, headers: { authorization } });
      expect(res.status, `${path} with ${authorization.split(" ")[0]}`).toBe(bare.status);
      expect(res.headers.get("www-authenticate")).toBeNull();
    }
  });
});

describe("isolation matrix: admin API", () => {
  let adm: TestApp;
  // Redis refuses a manual clock: there the clock's admin route is checked for its refusals only.
  beforeAll(async () => {
    adm = await createTestApp({ manualClock: true });
  });
  afterAll(() => adm.close());
  const adminRoutes = t.routes.filter((r) => r.plane === "admin");

  describe.each(adminRoutes.map((route) => ({ key: routeKey(route), route })))("$key", ({ route }: { route: RouteDef }) => {
    it("refuses every credential but the admin key with 401, writing nothing and quoting no secret", async () => {
      for (const [what, authorization] of adminDenials(adm)) {
        const body = await ADMIN_BODIES[routeKey(route)]?.(adm);
        const path = await toAdminPath(route, adm);
        const before = await takeSnapshot(adm.core);
        const res = await adm.call(route.method, path, { token: null, body, headers: authorization ? { authorization } : {} });
        expectError(res, 401, "unauthenticated");
        expect(res.headers.get("www-authenticate"), what).toMatch(/^Bearer realm=/);
        expect(diffSnapshots(before, await takeSnapshot(adm.core)), `${route.path} with ${what} wrote`).toEqual([]);
        expectNoLeak(res, [adm.adminKey, adm.creds.token, adm.creds.client_secret], { authorization, body }, `${route.path} with ${what}`);
      }
    });

    it("accepts the admin key", async () => {
      const res = await adm.call(route.method, await toAdminPath(route, adm), { token: adm.adminKey, body: await ADMIN_BODIES[routeKey(route)]?.(adm) });
      expect(res.status, res.text.slice(0, 300)).toBeGreaterThanOrEqual(200);
      expect(res.status, res.text.slice(0, 300)).toBeLessThan(300);
    });
  });
});
