import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteDef } from "../http/route.js";
import { documentRequestArb, type DocumentRequest } from "../testing/fuzz-document-arb.js";
import type { FuzzSpec } from "../testing/fuzz-request-arb.js";
import { createFuzzApp, seedFuzzWorld, toRequest, type FuzzWorld } from "../testing/fuzz-world.js";
import { findInexpressible, type Issue } from "../testing/inexpressible.js";
import { derefDocument, requestValidators } from "../testing/openapi-ajv.js";

/*
 * Requests generated from the served document's own JSON Schemas (query parameters and bodies, each
 * checked with ajv before it is sent), with valid credentials and real fixtures. The document must be as
 * strict as the server: a 400 to such a request is a failure unless `testing/inexpressible.ts` lists the
 * refusal as one the document cannot state. `LP_FUZZ_SEED` replays a run; `LP_DOC_FUZZ_RUNS` sets the
 * requests per operation.
 */
const RUNS = Number(process.env.LP_DOC_FUZZ_RUNS ?? 100);
const seed = Number(process.env.LP_FUZZ_SEED ?? Date.now() % 2 ** 31);
const { t, errors: backgroundErrors } = await createFuzzApp();
const doc = derefDocument((await t.call("GET", "/v1/openapi.json", { token: null })).json);
const validators = requestValidators(doc);
let world: FuzzWorld;

/** The documented operations that take a query or a body, with their route. DELETEs would eat the fixtures. */
const operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
  Object.entries<any>(ops)
    .filter(([method, op]) => method !== "delete" && (op.requestBody || op.parameters?.some((p: any) => p.in === "query")))
    .map(([method, op]) => {
      const route = t.routes.find((r) => r.method.toLowerCase() === method && r.path.replace(/:(\w+)/g, "{$1}") === path)!;
      return { key: `${method.toUpperCase()} ${path}`, op, route };
    }),
);

async function settle(): Promise<void> {
  while (t.core.queue.pending > 0) {
    t.release();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await t.core.onIdle();
}

function toSpec(route: RouteDef, req: DocumentRequest): FuzzSpec {
  const body: FuzzSpec["body"] =
    req.body.kind === "json"
      ? { kind: "json", value: req.body.value, type: "application/json" }
      : req.body.kind === "multipart"
        ? { kind: "multipart", fields: req.body.fields, files: [] }
        : { kind: "none" };
  const params = (route.path.match(/\*\*:\w+|:\w+/g) ?? []).map(() => ({ fixture: "own" as const }));
  return { method: route.method, params, query: { pairs: req.query, raw: null }, auth: "valid", scopeIndex: 0, idempotencyKey: null, simulate: null, body };
}

/** Sends one admitted request; throws unless the answer is a success or an error the document allows. */
async function sendOne(key: string, route: RouteDef, req: DocumentRequest): Promise<void> {
  const built = toRequest(route, toSpec(route, req), world, t.adminKey);
  const res = await t.app.request(built.path, built.init);
  const text = await res.text();
  await settle();
  const problems: string[] = [];
  if (res.status >= 500) problems.push(`answered ${res.status}`);
  if (res.status === 400) {
    const error = JSON.parse(text).error as { code: string; details?: { issues?: Issue[] } };
    const issues = error.details?.issues ?? [];
    const unexcused = issues.length ? issues.filter((issue) => !findInexpressible(key, error.code, issue)) : findInexpressible(key, error.code) ? [] : [{ path: "" }];
    if (unexcused.length) problems.push(`the document admits this request but the server refused it (${error.code} at ${unexcused.map((i) => i.path || "(root)").join(", ")})`);
  }
  if (backgroundErrors.length) problems.push(`background failure: ${backgroundErrors.splice(0).join("\n")}`);
  if (problems.length) throw new Error(`${problems.join("; ")}\n  request: ${built.summary}\n  response: ${res.status} ${text.slice(0, 600)}`);
}

beforeAll(async () => {
  world = await seedFuzzWorld(t);
});
afterAll(() => t.close());

describe(`requests the document admits are not refused with 400 (seed ${seed}, ${RUNS} per operation)`, () => {
  it.each(operations.map((o, i) => ({ ...o, i })))("$key", async ({ key, op, route, i }) => {
    expect(route, `${key} has a route`).toBeDefined();
    const check = (schema: object, value: unknown) => validators.check(schema, value);
    // A generated cursor is never one the server issued (an inexpressible refusal, see inexpressible.ts):
    // leaving it out lets the other parameters of a listing reach the server's checks.
    const parameters = op.parameters?.filter((p: { name: string }) => p.name !== "cursor");
    await fc.assert(
      fc.asyncProperty(documentRequestArb({ ...op, parameters }, check), (req) => sendOne(key, route, req)),
      { seed: seed + i, numRuns: RUNS, endOnFailure: true },
    );
  }, 120_000);
});
