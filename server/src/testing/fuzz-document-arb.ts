import fc from "fast-check";
import { toArbitrary, toVariants, type JsonSchema } from "./fuzz-schema-arb.js";

/** A request the served OpenAPI document admits: query pairs and a body, both as they go on the wire. */
export interface DocumentRequest {
  query: [string, string][];
  body: { kind: "none" } | { kind: "json"; value: unknown } | { kind: "multipart"; fields: [string, string][] };
}

/** Checks a value against one JSON Schema of the document (ajv, formats on). */
export type SchemaCheck = (schema: object, value: unknown) => boolean;

/** Values the document admits for `schema`: generated from it, then kept only if the document agrees. */
export function admittedValue(schema: JsonSchema, check: SchemaCheck): fc.Arbitrary<unknown> {
  return fc.oneof(...toVariants(schema).map((v) => toArbitrary(v))).filter((value) => check(schema, value));
}

/** A multipart value as form fields: arrays of scalars repeat the field, objects travel as JSON, null as "". */
function toFields(value: Record<string, unknown>): [string, string][] {
  return Object.entries(value).flatMap(([name, v]): [string, string][] => {
    if (v === null) return [[name, ""]];
    if (Array.isArray(v)) return v.some((item) => typeof item === "object") ? [[name, JSON.stringify(v)]] : v.map((item) => [name, String(item)]);
    if (typeof v === "object") return [[name, JSON.stringify(v)]];
    return [[name, String(v)]];
  });
}

/** Requests for one operation of the document that the document itself admits. */
export function documentRequestArb(op: { parameters?: any[]; requestBody?: any }, check: SchemaCheck): fc.Arbitrary<DocumentRequest> {
  const params = (op.parameters ?? []).filter((p) => p.in === "query");
  const pairs = params.map((p) =>
    fc
      .tuple(p.required ? fc.constant(true) : fc.boolean(), admittedValue(p.schema, check))
      .map(([present, v]): [string, string][] => (present ? [[p.name, typeof v === "string" ? v : JSON.stringify(v)]] : [])),
  );
  const query = fc.tuple(...pairs).map((lists) => lists.flat());
  const content = op.requestBody?.content ?? {};
  const bodies: fc.Arbitrary<DocumentRequest["body"]>[] = [];
  const json = content["application/json"]?.schema;
  if (json) bodies.push(admittedValue(json, check).map((value) => ({ kind: "json" as const, value })));
  const multipart = content["multipart/form-data"]?.schema;
  if (multipart) bodies.push(admittedValue(multipart, check).map((value) => ({ kind: "multipart" as const, fields: toFields(value as Record<string, unknown>) })));
  if (!op.requestBody?.required) bodies.push(fc.constant({ kind: "none" as const }));
  return fc.record({ query, body: fc.oneof(...bodies) });
}
