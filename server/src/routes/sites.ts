import { LpError, renderCheckoutErrors, renderNotFoundPage, renderPage } from "@lp/core";
import { HTTPResponse } from "h3";
import { readForm, type FormLimits } from "../http/form.js";
import { htmlHeaders, htmlResponse } from "../http/html.js";
import { PlainResponse } from "../http/respond.js";
import { createRateLimiter, type RateLimiter } from "../http/rate-limit.js";
import { defineRoute, type RouteDef, type ServerContext } from "../http/route.js";

/** Sites and their checkout answers: nothing of ours frames them, so nobody may. */
const html = (body: string, status = 200, headers: Record<string, string> = {}) => htmlResponse(body, "none", status, headers);
/** The builder preview: the dashboard, on this origin, frames it. */
const builderHtml = (body: string, status = 200, headers: Record<string, string> = {}) => htmlResponse(body, "self", status, headers);

/**
 * What a site's 200 and 304 send, built once per deployment's snapshot: the sites service keeps the
 * snapshots it last served (the same object on every GET), and each deployment's files are immutable, so
 * its id is a strong validator. The page is kept encoded: a string body would be measured and encoded to
 * UTF-8 again on every GET.
 */
const served = new WeakMap<object, { etag: string; ok: Record<string, string>; notModified: Record<string, string>; bytes: Buffer<ArrayBuffer> }>();
function servedOf(site: { deployment_id: string; html: string }) {
  let known = served.get(site);
  if (!known) {
    const etag = `"${site.deployment_id}"`;
    const notModified = { etag, "cache-control": "public, max-age=0, must-revalidate" };
    const bytes = Buffer.from(site.html, "utf8") as Buffer<ArrayBuffer>; // never a SharedArrayBuffer
    known = { etag, notModified, ok: { ...htmlHeaders("none"), ...notModified, "content-length": String(bytes.byteLength) }, bytes };
    served.set(site, known);
  }
  return known;
}

/** One limiter per server, made on its first checkout post. */
const limiters = new WeakMap<ServerContext, RateLimiter | null>();
function checkoutLimiter(server: ServerContext): RateLimiter | null {
  if (!limiters.has(server)) {
    const limit = server.settings.checkoutRateLimit;
    limiters.set(server, limit ? createRateLimiter(limit, server.core.rateWindows) : null);
  }
  return limiters.get(server)!;
}

/** The client's address as the socket saw it (forwarding headers are not trusted). */
const clientAddress = (req: Request) => (req as Request & { ip?: string }).ip ?? "unknown";

/**
 * Limits of a checkout post: a page has at most 30 checkout fields of short text, and no file inputs.
 * Anything past them is not a form of ours: 413 naming the limit.
 */
export const CHECKOUT_LIMITS: FormLimits = {
  bytes: 64 * 1024,
  parts: 64,
  fields: 64,
  fieldSize: 16 * 1024,
  files: 0,
  fileSize: 0,
  fieldNameSize: 100,
};

/** Reads a form post (urlencoded or multipart) into plain strings; a repeated field keeps its last value. */
async function readCheckoutForm(req: Request): Promise<Record<string, string>> {
  // A post without a type is read as the urlencoded form a browser sends. What is not a form body at all
  // reads as an empty form: the page then lists the required fields.
  const type = req.headers.get("content-type") || "application/x-www-form-urlencoded";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return {};
  try {
    const form = await readForm(req, CHECKOUT_LIMITS, type);
    return Object.fromEntries([...form.fields].map(([name, values]) => [name, values[values.length - 1]!]));
  } catch (error) {
    if ((error as { code?: string }).code === "validation_error") return {};
    throw error;
  }
}

/**
 * Who may see a builder preview (it shows unpublished edits): the holder of a valid signed link (what
 * `builder_url` carries), or the owning account's bearer token with `pages:read`. Any other token,
 * valid or not, opens nothing, and is not told why.
 */
async function mayPreview(server: ServerContext, page: { id: string; account_id: string }, url: URL, req: Request): Promise<boolean> {
  if (server.core.pages.verifyBuilderLink(page.id, url.searchParams.get("expires"), url.searchParams.get("sig"))) return true;
  const match = /^Bearer\s+(\S{1,256})\s*$/i.exec(req.headers.get("authorization") ?? "");
  if (!match) return false;
  try {
    const principal = await server.core.accounts.authenticateToken(match[1]!);
    return principal.account_id === page.account_id && principal.scopes.includes("pages:read");
  } catch (error) {
    // A bad or expired token is one more stranger; a storage fault is still the fault it is.
    if (error instanceof LpError && error.code === "unauthenticated") return false;
    throw error;
  }
}

/** The deployed sites and their checkout forms (public, like the hosted pages), and the builder preview (signed link or owner's token). */
export const siteRoutes: RouteDef[] = [
  defineRoute({
    method: "GET",
    path: "/sites/:account_id/:slug/",
    plane: "none",
    internal: true,
    handler: async ({ server, params, req, url }) => {
      if (!url.pathname.endsWith("/")) return new Response(null, { status: 301, headers: { location: `${url.pathname}/${url.search}` } });
      const site = await server.core.sites.find(params.account_id, params.slug);
      if (!site) return html(renderNotFoundPage(), 404, { "cache-control": "no-store" });
      const { etag, ok, notModified, bytes } = servedOf(site);
      if (req.headers.get("if-none-match") === etag) return new HTTPResponse(null, { status: 304, headers: notModified });
      return new PlainResponse(bytes, { status: 200, headers: ok });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/sites/:account_id/:slug/checkout",
    plane: "none",
    internal: true,
    handler: async ({ server, params, req, change }) => {
      // Counted before the body is read: a refused post costs no parsing.
      await checkoutLimiter(server)?.hit(clientAddress(req));
      const outcome = await server.core.sites.submitCheckout(params.account_id, params.slug, await readCheckoutForm(req), change);
      if (outcome.kind === "missing") return html(renderNotFoundPage(), 404);
      if (outcome.kind === "invalid") return html(renderCheckoutErrors(outcome.site, outcome.errors), 400, { "cache-control": "no-store" });
      return html(outcome.html, 200, { "cache-control": "no-store" });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/builder/:page_id",
    plane: "none",
    internal: true,
    handler: async ({ server, params, url, req }) => {
      const page = await server.core.pages.findPage(params.page_id);
      // One 404 for a missing page and a closed one: the answer never says whether the id exists.
      if (!page || !(await mayPreview(server, page, url, req))) return builderHtml(renderNotFoundPage(), 404, { "cache-control": "no-store" });
      return builderHtml(renderPage(await server.core.pages.renderable(page), { checkoutAction: null, preview: true }), 200, { "cache-control": "no-store" });
    },
  }),
];
