import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apiRoutes } from "../app.js";
import type { RouteDef } from "../http/route.js";
import { buildOpenApi } from "./build-openapi.js";

const routes = apiRoutes({ settings: { simulate: false, adminKey: null, publicUrl: () => "http://lp.test" } });
const doc = buildOpenApi(routes);
const documented = routes.filter((r) => !r.internal && r.docs);

type JsonSchema = Record<string, unknown>;

/** A schema as JSON Schema, converted here on its own, with its named parts checked against the document's. */
function expected(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, JsonSchema>;
  delete out.$defs;
  for (const [name, def] of Object.entries(defs)) expect(doc.components.schemas[name as keyof typeof doc.components.schemas]).toEqual(def);
  return JSON.parse(JSON.stringify(out).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
}

const operationOf = (route: RouteDef) =>
  doc.paths[route.path.replace(/:(\w+)/g, "{$1}")]![route.method.toLowerCase()] as {
    parameters: { name: string; in: string; required: boolean; schema: unknown }[];
    requestBody?: { required: boolean; content: Record<string, { schema: unknown }> };
  };

describe("the document of each route comes from the schemas the route declares", () => {
  it.each(documented.map((r) => [`${r.method} ${r.path}`, r] as const))("%s", (_name, route) => {
    const op = operationOf(route);
    const body = route.body;
    if (!body) expect(op.requestBody).toBeUndefined();
    else {
      const content: Record<string, { schema: unknown }> = { "application/json": { schema: expected(body.schema) } };
      if (body.transport === "json-or-form") content["multipart/form-data"] = { schema: expected(body.form) };
      expect(op.requestBody).toEqual({ required: body.transport === "json-or-form" || !body.optional, content });
    }
    const query = op.parameters.filter((p) => p.in === "query");
    const props = route.query ? ((expected(route.query).properties ?? {}) as Record<string, JsonSchema>) : {};
    expect(query.map((p) => p.name)).toEqual(Object.keys(props));
    for (const p of query) expect(p.schema).toEqual(props[p.name]);
  });

  it("documents a body on every route that reads one, and query parameters on every listing", () => {
    const withBody = documented.filter((r) => r.body).map((r) => `${r.method} ${r.path}`);
    expect(withBody).toEqual(documented.filter((r) => r.method === "POST" || r.method === "PATCH").map((r) => `${r.method} ${r.path}`));
    for (const route of documented.filter((r) => r.query)) expect(operationOf(route).parameters.some((p) => p.name === "cursor")).toBe(true);
    expect(documented.filter((r) => r.query)).toHaveLength(5);
  });
});
