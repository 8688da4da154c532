import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";

/** The account-plane operations of the published spec: each must be in the document. */
const SPEC_OPERATIONS = [
  "post /v1/accounts/{account_id}/products",
  "get /v1/accounts/{account_id}/products",
  "get /v1/accounts/{account_id}/products/{id}",
  "patch /v1/accounts/{account_id}/products/{id}",
  "delete /v1/accounts/{account_id}/products/{id}",
  "post /v1/accounts/{account_id}/pages",
  "get /v1/accounts/{account_id}/pages",
  "get /v1/accounts/{account_id}/pages/jobs/{jobId}",
  "get /v1/accounts/{account_id}/pages/{id}",
  "patch /v1/accounts/{account_id}/pages/{id}",
  "delete /v1/accounts/{account_id}/pages/{id}",
  "post /v1/accounts/{account_id}/pages/{id}/deployments",
  "get /v1/accounts/{account_id}/pages/{id}/deployments",
  "get /v1/accounts/{account_id}/pages/{id}/deployments/{deploymentId}",
];

describe("GET /v1/openapi.json", () => {
  let t: TestApp;
  let doc: any;
  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.call("GET", "/v1/openapi.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    doc = res.json;
  });
  afterAll(async () => {
    await t.close();
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const validator = new Validator({ strict: false });
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // The validator is not a rubber stamp: a parameter without a location is refused.
    const broken = structuredClone(doc);
    delete broken.paths["/v1/accounts/{account_id}/products"].get.parameters[0].in;
    expect((await new Validator({ strict: false }).validate(broken)).valid).toBe(false);
  });

  it("documents every public route of the app, and only those", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((m) => `${m} ${path}`));
    const routed = t.routes.filter((r) => !r.internal).map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
    expect(documented.sort()).toEqual([...new Set(routed)].sort());
    for (const op of SPEC_OPERATIONS) expect(documented, op).toContain(op);
    expect(documented.some((op) => op.includes("/_admin") || op.includes("/media") || op.includes("healthz"))).toBe(false);
  });

  it("declares each path parameter, a scope, a unique operationId and the error responses", () => {
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method} ${path}`;
        const declared = op.parameters.filter((p: any) => p.in === "path").map((p: any) => p.name);
        expect(declared.sort(), where).toEqual([...names].sort());
        expect(ids.has(op.operationId), `${where} operationId ${op.operationId}`).toBe(false);
        ids.add(op.operationId);
        if (path.startsWith("/v1/accounts/")) {
          expect(op["x-required-scope"], where).toMatch(/^(pages|products):(read|write|deploy)$/);
          expect(op.security, where).toEqual([{ bearerAuth: [op["x-required-scope"]] }]);
          expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(["400", "401", "403", "404"]));
          const idem = op.parameters.some((p: any) => p.in === "header" && p.name === "Idempotency-Key");
          expect(idem, where).toBe(method === "post" || method === "patch");
        }
      }
    }
  });

  it("takes its product schemas from the validating zod schemas", () => {
    const create = doc.paths["/v1/accounts/{account_id}/products"].post;
    const json = create.requestBody.content["application/json"].schema;
    expect([...json.required].sort()).toEqual(["price", "product_type", "title"]);
    expect(json.additionalProperties).toBe(false);
    expect(json.properties.product_type.enum).toEqual(["physical", "service"]);
    expect(json.properties.title.maxLength).toBe(200);
    expect(json.properties.price.minimum).toBe(0);
    expect(create.requestBody.content["multipart/form-data"]).toBeDefined();
    const list = doc.paths["/v1/accounts/{account_id}/products"].get;
    const perPage = list.parameters.find((p: any) => p.name === "per_page");
    expect(perPage).toMatchObject({ in: "query", required: false, schema: { minimum: 1, maximum: 100, default: 20 } });
    const sort = list.parameters.find((p: any) => p.name === "sort");
    expect(sort.schema.enum).toEqual(expect.arrayContaining(["created_at", "-created_at", "updated_at", "title", "-price"]));
    expect([...doc.components.schemas.Error.properties.error.required].sort()).toEqual(["code", "message", "request_id"]);
  });

  it("is served without credentials, and equals what the app built", async () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(t.openapi)));
  });
});
