import { z } from "zod";
import { bodyKindOf, type RouteDef } from "../http/route.js";
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
  "500": "Internal error (internal_error), or a stored record that cannot be read (record_unreadable, naming its id in details.id)",
  "503": "Service unavailable: the database cannot be reached (service_unavailable; details.reason database_unavailable), or the storage refuses writes (storage_unavailable; details.reason read_only or permission_denied); send again after Retry-After",
  "507": "Insufficient storage (insufficient_storage): the disk or the database is full (details.reason disk_full); reads still work; send again after Retry-After",
};

/**
 * Whether a route can answer with one of the shared error statuses: body errors only where a body is read,
 * idempotency conflicts (409, 422) only where an `Idempotency-Key` is honoured (account POST and PATCH).
 */
function canAnswer(route: RouteDef, status: string): boolean {
  if (status === "413" || status === "415") return bodyKindOf(route) !== "none";
  if (status === "409" || status === "422") return route.plane === "account" && (route.method === "POST" || route.method === "PATCH");
  // Reads never write: only a route that changes something can meet a storage that refuses writes.
  if (status === "507") return route.method !== "GET";
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
    parameters.push(...queryParameters(route));
    if (route.plane === "account" && (route.method === "POST" || route.method === "PATCH")) {
      // HTTP trims a header value, so a key of spaces arrives empty: `\S` says it needs a visible character.
      parameters.push({ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 255, pattern: "\\S" } });
    }
    const requestBody = requestBodyOf(route);
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(docs.responses)) {
      if (!res.schema && ERROR_STATUSES[status]) continue; // an error status a route describes in its own words: below
      responses[status] = res.schema ? { description: res.description, content: { "application/json": { schema: toSchema(res.schema, "output") } } } : { description: res.description };
    }
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      if (!canAnswer(route, status)) continue;
      // A declared query is closed: the server refuses any name the parameters above do not list.
      const own = docs.responses[Number(status)]?.description;
      const closed = status === "400" && route.query ? `${description}; a query parameter not listed here is refused (validation_error, unrecognized_keys)` : description;
      responses[status] ??= { description: own ?? closed, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
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
      ...(requestBody ? { requestBody } : {}),
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

/** The query parameters of a route: one per property of its declared query schema. */
export function queryParameters(route: Pick<RouteDef, "query">): Record<string, unknown>[] {
  if (!route.query) return [];
  const schema = toSchema(route.query, "input");
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, prop]) => ({ name, in: "query", required: required.has(name) && prop.default === undefined, schema: prop, description: prop.description }));
}

/** The requestBody of a route: its declared JSON schema, and its form schema as multipart/form-data. */
export function requestBodyOf(route: Pick<RouteDef, "body">): { required: boolean; content: Record<string, { schema: JsonSchema }> } | null {
  const body = route.body;
  if (!body) return null;
  const content: Record<string, { schema: JsonSchema }> = { "application/json": { schema: toSchema(body.schema, "input") } };
  if (body.transport === "json-or-form") content["multipart/form-data"] = { schema: toSchema(body.form, "input") };
  return { required: body.transport === "json-or-form" || !body.optional, content };
}

function operationId(route: RouteDef): string {
  const words = route.path
    .split("/")
    .filter((p) => p && p !== "v1" && p !== "accounts" && !p.startsWith(":"))
    .map(toCamel);
  const suffix = route.path.endsWith("}") || /:\w+$/.test(route.path) ? "One" : "";
  return `${route.method.toLowerCase()}${words.map((w) => w[0].toUpperCase() + w.slice(1)).join("")}${suffix}`;
}

/** `webhook-endpoints` → `webhookEndpoints` (split, not a `[^a-z0-9]+(.)` replace, which backtracks on a trailing run). */
function toCamel(part: string): string {
  const [first = "", ...rest] = part.split(/[^a-z0-9]+/i);
  return first + rest.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
}
