import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsImport as unknown as { default?: typeof addFormatsImport }).default ?? addFormatsImport) as typeof addFormatsImport;

type Doc = { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, unknown> } };

/**
 * The document with every `#/components/schemas/...` reference replaced by its schema, so one operation's
 * schema can be compiled, or generated from, on its own.
 */
export function derefDocument<D extends Doc>(doc: D): D {
  const schemas = doc.components?.schemas ?? {};
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== "object") return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, walk(v)]));
    if (typeof $ref !== "string" || !$ref.startsWith("#/components/schemas/")) return $ref === undefined ? own : { $ref, ...own };
    return { ...(walk(schemas[$ref.slice("#/components/schemas/".length)]) as object), ...own };
  };
  return walk(doc) as D;
}

/**
 * Validators for the requests the served OpenAPI document describes, compiled with ajv (formats on), so a
 * test can ask "does the document admit this?" and compare with what the server answers.
 */
export function requestValidators(served: Doc) {
  const doc = derefDocument(served);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const cache = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: object) => {
    let fn = cache.get(key);
    if (!fn) cache.set(key, (fn = ajv.compile(schema)));
    return fn;
  };
  const operation = (method: string, path: string) => {
    const op = doc.paths[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`no operation ${method} ${path} in the document`);
    return op;
  };
  const bySchema = new WeakMap<object, ValidateFunction>();
  return {
    /** True when `value` satisfies `schema`, one of the document's own schema objects. */
    check(schema: object, value: unknown): boolean {
      let fn = bySchema.get(schema);
      if (!fn) bySchema.set(schema, (fn = ajv.compile(schema)));
      return fn(value) as boolean;
    },
    /** The JSON Schema of a request body, by media type. */
    bodySchema(method: string, path: string, mediaType = "application/json"): Record<string, any> {
      const schema = operation(method, path).requestBody?.content?.[mediaType]?.schema;
      if (!schema) throw new Error(`${method} ${path} documents no ${mediaType} body`);
      return schema;
    },
    /** True when the document admits `body` for the operation. */
    body(method: string, path: string, body: unknown, mediaType = "application/json"): boolean {
      return compile(`${method} ${path} ${mediaType}`, this.bodySchema(method, path, mediaType))(body) as boolean;
    },
    /** True when the document admits `value` for one query parameter. */
    query(method: string, path: string, name: string, value: unknown): boolean {
      const param = (operation(method, path).parameters as any[]).find((p) => p.in === "query" && p.name === name);
      if (!param) throw new Error(`${method} ${path} documents no query parameter ${name}`);
      return compile(`${method} ${path} ?${name}`, param.schema)(value) as boolean;
    },
  };
}
