import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteDef } from "../http/route.js";
import { queryNamesOf } from "../http/validate.js";
import { isPrototypeClean, toViolations } from "../testing/fuzz-check.js";
import { toParamNames, toSpecArb, type FuzzSpec } from "../testing/fuzz-request-arb.js";
import { countStored, diffSnapshots, isIdempotencyKey, takeSnapshot } from "../testing/fuzz-snapshot.js";
import { createFuzzApp, namesFixture, restoreWorld, seedFuzzWorld, toRequest, type FuzzWorld } from "../testing/fuzz-world.js";

/*
 * Property-based fuzzing of every route in the table (docs/reliability.md, "Fuzzing"). One seed per run,
 * printed in the suite's name and in any failure; `LP_FUZZ_SEED=<n>` replays a run and
 * `LP_FUZZ_REQUESTS=<n>` makes it longer (at least 10,000 requests by default).
 */
const TOTAL_REQUESTS = Number(process.env.LP_FUZZ_REQUESTS ?? 10_000);
const seed = Number(process.env.LP_FUZZ_SEED ?? Date.now() % 2 ** 31);
const { t, errors: backgroundErrors } = await createFuzzApp();
const runs = Math.ceil(TOTAL_REQUESTS / t.routes.length);
let world: FuzzWorld;
let sent = 0;

/** Lets background work finish, releasing the steps paused by `Lp-Simulate: slow`. */
async function settle(): Promise<void> {
  while (t.core.queue.pending > 0) {
    t.release();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await t.core.onIdle();
}

/** Puts the fixtures back after a reset, an import or a deleted fixture, and every so often as the store grows. */
async function maintain(pathname: string, method: string, status: number): Promise<void> {
  const wiped = status < 300 && (pathname === "/_admin/reset" || pathname === "/_admin/import");
  const deleted = status < 300 && method === "DELETE" && namesFixture(world, pathname);
  if (wiped || deleted || (sent % 50 === 0 && (await countStored(t.core)) > 1000)) await restoreWorld(t, world);
}

/** Sends one fuzzed request and checks every property; throws with the request in the message. */
async function fuzzOne(route: RouteDef, spec: FuzzSpec): Promise<void> {
  const req = toRequest(route, spec, world, t.adminKey);
  const write = req.method !== "GET";
  const before = write ? await takeSnapshot(t.core) : null;
  const res = await t.app.request(req.path, req.init);
  const text = await res.text();
  sent++;
  await settle();
  const pathname = new URL(req.path, "http://lp.test").pathname;
  const problems = toViolations(pathname, { status: res.status, headers: res.headers, text });
  try {
    t.conform?.({ method: req.method, path: pathname, status: res.status, contentType: res.headers.get("content-type"), text });
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (before && res.status >= 400 && res.status < 500) {
    const changed = diffSnapshots(before, await takeSnapshot(t.core), res.status === 404 ? isIdempotencyKey : undefined);
    if (changed.length) problems.push(`rejected with ${res.status} but wrote ${changed.slice(0, 5).join(" ")}`);
  }
  if (!isPrototypeClean()) problems.push("Object.prototype was polluted");
  if (backgroundErrors.length) problems.push(`background failure: ${backgroundErrors.splice(0).join("\n")}`);
  if (problems.length) throw new Error(`${problems.join("; ")}\n  request: ${req.summary}\n  response: ${res.status} ${text.slice(0, 400)}`);
  await maintain(pathname, req.method, res.status);
}

beforeAll(async () => {
  world = await seedFuzzWorld(t);
});
afterAll(() => t.close());

describe(`fuzz (seed ${seed}, ${runs} runs per route)`, () => {
  it.each(t.routes.map((route, i) => ({ key: `${route.method} ${route.path}`, route, i })))("$key", async ({ route, i }) => {
    await fc.assert(
      fc.asyncProperty(toSpecArb(route), (spec) => fuzzOne(route, spec)),
      { seed: seed + i, numRuns: runs, endOnFailure: true },
    );
  }, 120_000);

  it(`sent at least ${TOTAL_REQUESTS} requests across ${t.routes.length} routes`, () => {
    expect(sent).toBeGreaterThanOrEqual(TOTAL_REQUESTS);
  });
});

describe("fuzz regressions", () => {
  const listings = t.routes.filter((r) => r.method === "GET" && r.query);
  const base = (route: RouteDef): FuzzSpec => ({
    method: "GET",
    params: toParamNames(route.path).map(() => ({ fixture: "own" as const })),
    // A page of two: `per_page` on the API's listings, `limit` on the request journal's (`/_admin/requests`).
    query: { pairs: [[queryNamesOf(route.query!).includes("per_page") ? "per_page" : "limit", "2"]], raw: null },
    auth: "valid",
    scopeIndex: 0,
    idempotencyKey: null,
    simulate: null,
    body: { kind: "none" },
  });
  const read = async (path: string, init: RequestInit) => {
    const res = await t.app.request(path, init);
    return { status: res.status, data: JSON.parse(await res.text()).data };
  };

  // `?__proto__=x` once replaced the prototype of the parsed query, and `sort` then read Array.prototype.sort.
  // Unknown names are refused: each is named in an issue, and the message lists the names the listing takes.
  it.each(listings.map((route) => ({ key: `${route.method} ${route.path}`, route })))("$key refuses unknown query keys, __proto__ included", async ({ route }) => {
    const names = fc.constantFrom("__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf", "sort_by", "sortt");
    const accepted = queryNamesOf(route.query!);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(names, fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 3 }), async (extra) => {
        const req = toRequest(route, base(route), world, t.adminKey);
        const plain = await read(req.path, req.init);
        expect(plain.status).toBe(200);
        const res = await t.app.request(`${req.path}&${new URLSearchParams(extra)}`, req.init);
        const body = JSON.parse(await res.text());
        expect(res.status).toBe(400);
        expect(body.error.code).toBe("validation_error");
        expect(body.error.message).toContain(accepted.join(", "));
        const paths = body.error.details.issues.map((issue: { path: string; code: string }) => (expect(issue.code).toBe("unrecognized_keys"), issue.path));
        expect(paths).toEqual([...new Set(extra.map(([name]) => name))]);
        expect(isPrototypeClean()).toBe(true);
      }),
      { seed, numRuns: 25 },
    );
  });

  it("refuses a multipart field named __proto__ as an unknown field", async () => {
    const form = new FormData();
    for (const [k, v] of [["title", "Lamp"], ["price", "3"], ["product_type", "physical"], ["__proto__", "a"], ["__proto__", "b"]]) form.append(k, v);
    const { own } = world.tenants;
    const res = await t.call("POST", `/v1/accounts/${own.account}/products`, { token: own.tokens.all, raw: form });
    expect(res.status).toBe(400);
    expect(res.json.error.details.issues).toEqual([expect.objectContaining({ code: "unrecognized_keys", message: expect.stringContaining("__proto__") })]);
  });
});
