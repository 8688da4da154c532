import type { H3Event } from "h3";

/** The Content-Security-Policy of every dashboard response: own origin only, never framed. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

const isLoopbackName = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/** Whether an address is loopback (IPv4, IPv6, or IPv4-mapped IPv6). */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/i, "");
  return plain === "::1" || /^127\./.test(plain);
}

/**
 * Loopback only: the peer must be on this machine, and the Host header must name loopback, so a page on
 * another site cannot reach the dashboard through DNS rebinding. In-process requests have no peer.
 */
export function isLoopbackRequest(event: H3Event): boolean {
  const ip = (event.req as Request & { ip?: string }).ip;
  if (ip !== undefined && !isLoopbackAddress(ip)) return false;
  const host = (event.req.headers.get("host") ?? event.url.host).toLowerCase();
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d+$/, "");
  return isLoopbackName(name);
}

/** Whether a state-changing request comes from the dashboard's own origin (when the browser says). */
export function isSameOrigin(event: H3Event): boolean {
  const origin = event.req.headers.get("origin");
  if (origin === null) return true;
  const host = event.req.headers.get("host") ?? event.url.host;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Adds the dashboard's security headers to a response. */
export function withSecurityHeaders<T extends { headers: Headers }>(response: T, cache = "no-store"): T {
  const h = response.headers;
  h.set("content-security-policy", CSP);
  h.set("x-frame-options", "DENY");
  h.set("x-content-type-options", "nosniff");
  h.set("referrer-policy", "no-referrer");
  h.set("cross-origin-opener-policy", "same-origin");
  if (!h.has("cache-control")) h.set("cache-control", cache);
  return response;
}

/** A small HTML page for refusals and the login screen (no script). */
export function htmlMessage(status: number, title: string, text: string): Response {
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1><p>${escape(text)}</p></main></body></html>`;
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}

/** A JSON response in the API's error envelope. */
export function jsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}
