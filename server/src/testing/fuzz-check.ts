import { ERROR_CODES } from "@lp/core";
import { STATUS_BY_CODE } from "../http/errors.js";

/** A response as the fuzzer read it. */
export interface FuzzResponse {
  status: number;
  headers: Headers;
  text: string;
}

const CODES = new Set<string>(ERROR_CODES);
const ENVELOPE_KEYS = new Set(["code", "message", "details", "request_id"]);
/** Public HTML routes answer their errors as pages, like the hosted sites. */
const isHtmlRoute = (pathname: string) => pathname.startsWith("/sites/") || pathname.startsWith("/builder/");

/**
 * The properties every response must have, as a list of violations (empty when it is fine): no 5xx; an
 * `X-Request-Id`; every error (other than redirects and the public HTML pages) in the exact envelope
 * `{ error: { code, message, details?, request_id } }` with a code from the closed list, the status the
 * one table gives it, and the request id of the header; `{ data }` on API successes with a body.
 */
export function toViolations(pathname: string, res: FuzzResponse): string[] {
  const out: string[] = [];
  const requestId = res.headers.get("x-request-id");
  if (res.status >= 500) out.push(`status ${res.status}`);
  if (!requestId || !/^req_[0-9a-f]+$/.test(requestId)) out.push(`X-Request-Id is ${requestId}`);
  const type = res.headers.get("content-type") ?? "";
  const api = pathname.startsWith("/v1/accounts/") || pathname.startsWith("/v1/developer/") || pathname.startsWith("/_admin/");
  if (res.status < 300) {
    if (api && res.status !== 204 && !/"data"\s*:/.test(res.text.slice(0, 20)) && !pathname.startsWith("/_admin/export")) {
      out.push(`success body without data: ${res.text.slice(0, 200)}`);
    }
    return out;
  }
  if (res.status === 301 || res.status === 304) return out;
  if (/^text\/html/.test(type) && isHtmlRoute(pathname)) return out;
  if (!/^application\/json/.test(type)) return [...out, `error with content-type '${type}'`];
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return [...out, `error body is not JSON: ${res.text.slice(0, 200)}`];
  }
  const error = body?.error;
  if (!body || typeof body !== "object" || Object.keys(body).join() !== "error" || !error || typeof error !== "object") {
    return [...out, `not an error envelope: ${res.text.slice(0, 300)}`];
  }
  const extra = Object.keys(error).filter((k) => !ENVELOPE_KEYS.has(k));
  if (extra.length) out.push(`envelope has extra keys ${extra.join(", ")}`);
  if (!CODES.has(error.code)) out.push(`code '${error.code}' is not in the closed list`);
  else if (STATUS_BY_CODE[error.code as keyof typeof STATUS_BY_CODE] !== res.status) out.push(`code ${error.code} with status ${res.status}`);
  if (typeof error.message !== "string" || error.message.length === 0) out.push("message is not a non-empty string");
  if (error.request_id !== requestId) out.push(`request_id ${error.request_id} differs from X-Request-Id ${requestId}`);
  if ("details" in error && (error.details === null || typeof error.details !== "object" || Array.isArray(error.details))) out.push("details is not an object");
  if (res.status === 401 && !res.headers.get("www-authenticate")) out.push("401 without WWW-Authenticate");
  if (res.status === 405 && !res.headers.get("allow")) out.push("405 without Allow");
  return out;
}

/** True when nothing has been added to `Object.prototype` (a `__proto__` key that got merged somewhere). */
export function isPrototypeClean(): boolean {
  return Object.keys(Object.prototype).length === 0 && ({} as Record<string, unknown>).polluted === undefined;
}
