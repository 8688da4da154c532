import { LpError, parseInput, validationError } from "@lp/core";
import type { z } from "zod";
import type { BodyInput } from "./body.js";
import type { Upload } from "./form.js";
import type { BodySpec } from "./route.js";

/**
 * A route's body checked against its declared schema: the JSON schema for JSON, the form schema for a
 * multipart form (whose files may come only in the declared files field). An empty body without a
 * Content-Type reads as `{}`, on every route alike.
 */
export function parseBody(spec: BodySpec | undefined, body: BodyInput | null): { input: unknown; files: Upload[] } {
  if (!spec || !body) return { input: null, files: [] };
  if (body.kind === "json") return { input: parseInput(spec.schema, body.body === undefined ? {} : body.body), files: [] };
  // The body reader gives a form only to routes that declare one.
  if (spec.transport !== "json-or-form") throw new Error("A multipart body reached a JSON-only route");
  const input = parseInput(spec.form, body.fields);
  for (const file of body.files) {
    if (file.field !== spec.files && file.field !== `${spec.files}[]`) {
      throw new LpError("validation_error", `Unexpected file field '${file.field}'; upload ${spec.files} in the '${spec.files}' field.`, {
        issues: [{ path: file.field, code: "unexpected_file", message: `only the ${spec.files} field takes files` }],
      });
    }
  }
  return { input, files: body.files };
}

/** The query string as parameters: a repeated one becomes a list. */
export function toQuery(url: URL): Record<string, string | string[]> {
  const out = new Map<string, string | string[]>();
  for (const [key, value] of url.searchParams) {
    const previous = out.get(key);
    out.set(key, previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]);
  }
  // Own properties, `__proto__` included: assigning `out["__proto__"]` would swap the object's prototype
  // (`?__proto__=x` then made `query.sort` read Array.prototype.sort).
  return Object.fromEntries(out);
}

/**
 * The query checked against the route's schema. A parameter the schema does not name is refused (a typo such
 * as `?sortt=title` would otherwise be ignored and answer the default order), with the names it accepts.
 */
export function parseQuery(schema: z.ZodType, url: URL): Record<string, unknown> {
  const query = toQuery(url);
  const accepted = queryNamesOf(schema);
  const unknown = Object.keys(query).filter((name) => !accepted.includes(name));
  if (unknown.length) {
    const list = accepted.join(", ");
    const named = unknown.map((name) => `'${name.slice(0, 64)}'`).join(", ");
    throw validationError(
      unknown.map((name) => ({ path: name, code: "unrecognized_keys", message: `not a query parameter of this operation; accepted: ${list}` })),
      `Unknown query parameter${unknown.length > 1 ? "s" : ""} ${named}; this operation accepts: ${list}.`,
    );
  }
  return parseInput(schema, query) as Record<string, unknown>;
}

const namesBySchema = new WeakMap<z.ZodType, string[]>();

/** The parameter names a query schema declares (its object shape), computed once per schema. */
export function queryNamesOf(schema: z.ZodType): string[] {
  let names = namesBySchema.get(schema);
  if (!names) {
    const shape = (schema as { shape?: Record<string, unknown> }).shape;
    names = shape ? Object.keys(shape) : [];
    namesBySchema.set(schema, names);
  }
  return names;
}
