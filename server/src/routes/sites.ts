import { renderCheckoutErrors, renderNotFoundPage, renderPage } from "@lp/core";
import { readLimited } from "../http/body.js";
import { defineRoute, type RouteDef } from "../http/route.js";

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { ...HTML_HEADERS, ...headers } });

/** Reads a form post (urlencoded or multipart) into plain strings. */
async function readForm(req: Request): Promise<Record<string, string>> {
  const bytes = await readLimited(req, 64 * 1024);
  const type = req.headers.get("content-type") ?? "application/x-www-form-urlencoded";
  const form = await new Response(Buffer.from(bytes), { headers: { "content-type": type } }).formData().catch(() => null);
  const values: Record<string, string> = {};
  for (const [key, value] of form?.entries() ?? []) if (typeof value === "string") values[key] = value;
  return values;
}

/** The deployed sites, their checkout forms, and the builder preview. Public, like the hosted pages. */
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
      const etag = `"${site.deployment_id}"`;
      // Each deployment's files are immutable, so its id is a strong validator.
      const headers = { etag, "cache-control": "public, max-age=0, must-revalidate" };
      if (req.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
      return html(site.html, 200, headers);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/sites/:account_id/:slug/checkout",
    plane: "none",
    internal: true,
    handler: async ({ server, params, req }) => {
      const outcome = await server.core.sites.submitCheckout(params.account_id, params.slug, await readForm(req));
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
    handler: async ({ server, params }) => {
      const page = await server.core.pages.findPage(params.page_id);
      if (!page) return html(renderNotFoundPage(), 404, { "cache-control": "no-store" });
      return html(renderPage(await server.core.pages.renderable(page), { checkoutAction: null, preview: true }), 200, { "cache-control": "no-store" });
    },
  }),
];
