import { defineRoute, type RouteDef } from "../http/route.js";
import { json } from "../http/respond.js";

/** Headers of the index's HTML: nothing but inline styles may load, and no site may frame it. */
const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What the index lists, as JSON for clients that ask for it. */
function toIndex(base: string, admin: boolean) {
  return {
    name: "lp",
    api_base: `${base}/v1`,
    openapi_url: `${base}/v1/openapi.json`,
    health_url: `${base}/healthz`,
    ready_url: `${base}/readyz`,
    // The dashboard goes with the admin API (`--no-admin` turns both off).
    dashboard_url: admin ? `${base}/_dashboard` : null,
    admin_api: admin ? `${base}/_admin` : null,
  };
}

function renderIndex(index: ReturnType<typeof toIndex>): string {
  const link = (href: string, text = href) => `<a href="${escape(href)}">${escape(text)}</a>`;
  const rows = [
    ["API base", `<code>${escape(index.api_base)}</code> (account routes under <code>/v1/accounts/{account_id}</code>)`],
    ["OpenAPI 3.1", link(index.openapi_url)],
    ["Dashboard", index.dashboard_url ? `${link(index.dashboard_url)} (log in with the URL <code>lp serve</code> printed, or <code>lp dashboard</code>)` : "off (<code>--no-admin</code>)"],
    ["Health", `${link(index.health_url)} · ${link(index.ready_url)}`],
    ["Admin API", index.admin_api ? `<code>${escape(index.admin_api)}</code> (needs the admin key)` : "off (<code>--no-admin</code>)"],
    ["Docs", "<code>docs/api.md</code>, <code>docs/cli.md</code>, <code>docs/webhooks.md</code> in the lp repository; <code>lp --help</code>"],
    ["Credentials", "printed by <code>lp serve</code> and written to <code>.lp/credentials.json</code>"],
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>lp: local landing page service</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; }
h1 { font-size: 1.6rem; margin-bottom: .25rem; }
p { margin-top: 0; color: #52606d; }
th { text-align: left; padding: .4rem 1.5rem .4rem 0; vertical-align: top; white-space: nowrap; }
td { padding: .4rem 0; }
code { background: #f0f4f8; padding: 0 .25rem; border-radius: 3px; }
a { color: #0b69a3; }
</style>
</head>
<body>
<h1>lp</h1>
<p>A local, stateful copy of the landing page service API.</p>
<table>
${rows.map(([name, value]) => `<tr><th scope="row">${name}</th><td>${value}</td></tr>`).join("\n")}
</table>
</body>
</html>
`;
}

/** `GET /`: a small index for a browser (HTML), or the same facts as JSON for `Accept: application/json`. */
export const indexRoutes: RouteDef[] = [
  defineRoute({
    method: "GET",
    path: "/",
    plane: "none",
    internal: true,
    handler: ({ req, server }) => {
      const index = toIndex(server.settings.publicUrl(), server.settings.adminKey !== null);
      const accept = req.headers.get("accept") ?? "";
      // A browser asks for text/html first; a client that names JSON (and not HTML) gets JSON.
      if (accept.includes("application/json") && !accept.includes("text/html")) return json(index, 200, { vary: "accept" });
      return new Response(renderIndex(index), { status: 200, headers: { ...HTML_HEADERS, vary: "accept" } });
    },
  }),
];
