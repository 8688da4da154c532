import { z } from "zod";
import type { RouteDef } from "../http/route.js";
import { errorResponse } from "./resource-schemas.js";
import { responseHeaderComponents, responseHeaders } from "./response-headers.js";

type JsonSchema = Record<string, unknown>;

/** Schemas given a `.meta({ id })` (Color, FontStack): written once under components.schemas. */
const named: Record<string, JsonSchema> = {};

const toSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema => {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  delete out.$schema;
  const defs = out.$defs as Record<string, JsonSchema> | undefined;
  if (!defs) return out;
  delete out.$defs;
  Object.assign(named, defs);
  // zod points at its own `$defs`; in the document they live under components.
  return JSON.parse(JSON.stringify(out).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
};

const ERROR_STATUSES: Record<string, string> = {
  "400": "Invalid request (validation_error, invalid_json, invalid_cursor)",
  "401": "Missing or invalid credentials",
  "403": "Insufficient scope, another account, or quota exceeded",
  "404": "Not found",
  "405": "Method not allowed on this path (Allow lists the ones it takes)",
  "409": "Conflict",
  "413": "Payload too large",
  "415": "Unsupported media type",
  "422": "Idempotency key reused with another request",
  "503": "Service unavailable (service_unavailable): the shared store (Redis) is down or restarting; send again after Retry-After",
};

/**
 * Whether a route can answer with one of the shared error statuses: body errors only where a body is read,
 * idempotency conflicts (409, 422) only where an `Idempotency-Key` is honoured (account POST and PATCH).
 */
function canAnswer(route: RouteDef, status: string): boolean {
  if (status === "413" || status === "415") return route.body !== "none";
  if (status === "409" || status === "422") return route.plane === "account" && (route.method === "POST" || route.method === "PATCH");
  return true;
}

/**
 * The OpenAPI 3.1 document of the public API, generated from the route table and the zod schemas that
 * validate each request, so the document cannot drift from what the server accepts.
 */
export function buildOpenApi(routes: RouteDef[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.internal || !route.docs) continue;
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const docs = route.docs;
    const parameters: unknown[] = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    if (docs.query) {
      const schema = toSchema(docs.query, "input");
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, prop] of Object.entries(props)) {
        parameters.push({ name, in: "query", required: required.has(name) && prop.default === undefined, schema: prop, description: prop.description });
      }
    }
    if (route.plane === "account" && (route.method === "POST" || route.method === "PATCH")) {
      // HTTP trims a header value, so a key of spaces arrives empty: `\S` says it needs a visible character.
      parameters.push({ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 255, pattern: "\\S" } });
    }
    const content: Record<string, unknown> = {};
    if (docs.body) content["application/json"] = { schema: toSchema(docs.body, "input") };
    if (docs.multipart) content["multipart/form-data"] = { schema: toSchema(docs.multipart, "input") };
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(docs.responses)) {
      responses[status] = res.schema ? { description: res.description, content: { "application/json": { schema: toSchema(res.schema, "output") } } } : { description: res.description };
    }
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      if (!canAnswer(route, status)) continue;
      responses[status] ??= { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
    }
    const isList = route.method === "GET" && parameters.some((p) => (p as { name: string }).name === "cursor");
    for (const [status, response] of Object.entries(responses)) {
      (response as Record<string, unknown>).headers = responseHeaders(route, Number(status), isList);
    }
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: docs.summary,
      tags: docs.tags,
      operationId: operationId(route),
      ...(route.scope ? { "x-required-scope": route.scope } : {}),
      security: route.plane === "app" ? [{ basicAuth: [] }] : [{ bearerAuth: [route.scope] }],
      parameters,
      ...(Object.keys(content).length ? { requestBody: { required: route.body === "json" || route.body === "json-or-multipart", content } } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Landing Page Service API (lp)",
      version: "1.0.0",
      description: "Generated from the schemas lp validates requests with.",
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas: { Error: toSchema(errorResponse, "output"), ...named },
      headers: responseHeaderComponents,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Access token of an account" },
        basicAuth: { type: "http", scheme: "basic", description: "application_id:client_secret of a partner application" },
      },
    },
  };
}

function operationId(route: RouteDef): string {
  const words = route.path
    .split("/")
    .filter((p) => p && p !== "v1" && p !== "accounts" && !p.startsWith(":"))
    .map((p) => p.replace(/[^a-z0-9]+(.)/gi, (_, c: string) => c.toUpperCase()));
  const suffix = route.path.endsWith("}") || /:\w+$/.test(route.path) ? "One" : "";
  return `${route.method.toLowerCase()}${words.map((w) => w[0].toUpperCase() + w.slice(1)).join("")}${suffix}`;
}
