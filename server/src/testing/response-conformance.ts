import { accountResponse, clockResponse, journalResponse, replayResultResponse, createdAppResponse, createdTokenResponse, importResultResponse, resetResultResponse } from "@lp/contract";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { z } from "zod";
import type { RouteDef } from "../http/route.js";

/** What a test saw: enough to name the route, the status and the body in a failure. */
export interface SeenResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

/** Checks one response against the document; throws, naming route, status and the schema errors. */
export type ConformanceCheck = (seen: SeenResponse) => void;

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

const DOC_ID = "https://lp.local/openapi.json";

/**
 * Answers of the internal admin API: it is left out of the document, so its answers are checked against
 * the contract's zod schemas directly.
 */
const INTERNAL: Record<string, Record<number, z.ZodType>> = {
  "POST /_admin/accounts": { 201: accountResponse },
  "POST /_admin/tokens": { 201: createdTokenResponse },
  "POST /_admin/apps": { 201: createdAppResponse },
  "POST /_admin/reset": { 200: resetResultResponse },
  "POST /_admin/import": { 200: importResultResponse },
  "GET /_admin/clock": { 200: clockResponse },
  "POST /_admin/clock": { 200: clockResponse },
  "GET /_admin/requests": { 200: journalResponse },
  "POST /_admin/webhook-endpoints/:endpoint_id/replay": { 202: replayResultResponse },
};

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

const toRegex = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:\w+/g, "[^/]+")}$`);

const checkers = new Map<string, ConformanceCheck>();

/**
 * A checker of responses against `/v1/openapi.json` (ajv, JSON Schema 2020-12, with formats): the response
 * schema documented for the route and status, or the error envelope. A documented route answering with a
 * status the document does not list is a failure too. Built once per distinct document.
 */
export function createConformanceCheck(routes: RouteDef[], doc: unknown): ConformanceCheck {
  const key = JSON.stringify(doc);
  const cached = checkers.get(key);
  if (cached) return cached;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, DOC_ID);
  const validators = new Map<string, ValidateFunction>();
  const table = routes.map((route) => ({ route, regex: toRegex(route.path), template: route.path.replace(/:(\w+)/g, "{$1}") }));
  const paths = (doc as Doc).paths;

  const check: ConformanceCheck = (seen) => {
    const method = seen.method.toUpperCase();
    const path = seen.path.split("?")[0];
    const hit = table.find((t) => t.route.method === method && t.regex.test(path));
    if (!hit) return; // 404s and 405s of unknown routes, HEAD: no operation to hold them to
    const where = `${method} ${hit.route.path} -> ${seen.status}`;
    const internal = INTERNAL[`${method} ${hit.route.path}`];
    if (internal && seen.status < 300) {
      const schema = internal[seen.status];
      if (!schema) throw new Error(`Response conformance: ${where} is not a status the admin contract lists.\n${seen.text.slice(0, 500)}`);
      const parsed = schema.safeParse(parseJson(seen, where));
      if (!parsed.success) throw new Error(`Response conformance: ${where} does not match the contract:\n${JSON.stringify(parsed.error.issues, null, 2)}\n${seen.text.slice(0, 500)}`);
      return;
    }
    const operation = paths[hit.template]?.[method.toLowerCase()];
    if (!operation) return; // internal routes (media, sites, admin errors): not in the document
    const documented = operation.responses[String(seen.status)];
    if (!documented) throw new Error(`Response conformance: ${where} is not documented (documented: ${Object.keys(operation.responses).join(", ")}).\n${seen.text.slice(0, 500)}`);
    if (!documented.content) {
      if (seen.text !== "") throw new Error(`Response conformance: ${where} is documented without a body but has one:\n${seen.text.slice(0, 500)}`);
      return;
    }
    if (!seen.contentType?.includes("application/json")) throw new Error(`Response conformance: ${where} has content-type ${seen.contentType}, documented application/json.`);
    const ref = `${DOC_ID}#/${pointer("paths", hit.template, method.toLowerCase(), "responses", String(seen.status), "content", "application/json", "schema")}`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.getSchema(ref);
      if (!validate) throw new Error(`Response conformance: no schema at ${ref}`);
      validators.set(ref, validate);
    }
    const body = parseJson(seen, where);
    if (!validate(body)) {
      throw new Error(`Response conformance: ${where} does not match its documented schema:\n${JSON.stringify(validate.errors, null, 2)}\nbody: ${seen.text.slice(0, 1000)}`);
    }
  };
  checkers.set(key, check);
  return check;
}

function parseJson(seen: SeenResponse, where: string): unknown {
  try {
    return JSON.parse(seen.text);
  } catch {
    throw new Error(`Response conformance: ${where} is not JSON:\n${seen.text.slice(0, 500)}`);
  }
}
