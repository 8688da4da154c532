/** Headers whose values are credentials: never kept in the request log. */
const SECRET_HEADERS = new Set(["authorization", "cookie", "set-cookie", "x-csrf-token", "proxy-authorization"]);
/** Field names whose values are credentials, in JSON bodies and query strings. */
const SECRET_FIELD = /(token|secret|password|authorization|api_key|apikey|admin_key|signature)/i;
/** Credential-shaped strings wherever they appear: webhook secrets, client secrets, admin keys, access tokens. */
const SECRET_VALUE = /\b(whsec_|lpsk_|lpadm_|lp_)[A-Za-z0-9_+/=-]{6,}/g;
/** Largest body kept per request or response. */
export const BODY_LIMIT = 8 * 1024;
const REDACTED = "[redacted]";
const MAX_DEPTH = 32;

/** Headers as a plain object with credentials replaced. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, key) => {
    out[key] = SECRET_HEADERS.has(key) ? REDACTED : value.replace(SECRET_VALUE, `$1${REDACTED}`);
  });
  return out;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return value.replace(SECRET_VALUE, `$1${REDACTED}`);
  if (depth > MAX_DEPTH || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) && item !== null && typeof item !== "object" ? REDACTED : redactValue(item, depth + 1);
  }
  return out;
}

/**
 * A body as text with credentials replaced: JSON field by field (names like `token`, `client_secret`),
 * any text by pattern (`whsec_...`, `lpsk_...`), then cut to {@link BODY_LIMIT}.
 */
export function redactBody(text: string): { body: string; truncated: boolean } {
  let out = text;
  if (text.length <= 256 * 1024 && /^\s*[[{]/.test(text)) {
    try {
      out = JSON.stringify(redactValue(JSON.parse(text), 0), null, 2);
    } catch {
      out = text.replace(SECRET_VALUE, `$1${REDACTED}`);
    }
  } else {
    out = text.slice(0, BODY_LIMIT * 2).replace(SECRET_VALUE, `$1${REDACTED}`);
  }
  return out.length > BODY_LIMIT ? { body: out.slice(0, BODY_LIMIT), truncated: true } : { body: out, truncated: false };
}

/** A path with its query string, values of credential-named parameters (the login `token`) replaced. */
export function redactUrl(url: URL): string {
  if (!url.search) return url.pathname;
  const params = new URLSearchParams(url.search);
  for (const key of [...params.keys()]) if (SECRET_FIELD.test(key)) params.set(key, REDACTED);
  return `${url.pathname}?${params.toString().replace(SECRET_VALUE, `$1${REDACTED}`)}`;
}
