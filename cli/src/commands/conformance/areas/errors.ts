import { need } from "../checks.js";
import type { Scenario } from "../scenario-context.js";
import { show } from "../schema-issues.js";

/** Scopes probed with `--narrow-token`, each by a request on the run's own records that changes nothing. */
const PROBES = [
  { scope: "products:read", method: "GET", target: "product" },
  { scope: "products:write", method: "PATCH", target: "product" },
  { scope: "pages:read", method: "GET", target: "page" },
  { scope: "pages:write", method: "PATCH", target: "page" },
] as const;

/**
 * Errors in the envelope, each with the status the error table gives its code: 401 without credentials,
 * 403 for a missing scope (`--narrow-token`), 404 for unknown ids, 400 for a bad body, JSON or cursor.
 */
export async function errorsArea(s: Scenario): Promise<void> {
  const { check, http, state } = s;
  const product = (id: string) => s.accountPath(`/products/${encodeURIComponent(id)}`);

  await check("errors", "errors.unauthenticated", "401 unauthenticated with WWW-Authenticate", async (c) => {
    const ex = await http.send(c, "GET", product(need(state.productJson, "products.create")), { as: "anonymous" });
    c.envelope(ex, "unauthenticated");
    c.rule(ex.headers.get("www-authenticate") !== null, "header WWW-Authenticate: missing on a 401");
  });

  await check("errors", "errors.unauthenticated (developer)", "401 unauthenticated for a wrong client secret", async (c) => {
    if (!s.opts.application) return c.skip("no application id and secret (--skip-webhooks)");
    const ex = await http.send(c, "GET", "/v1/developer/webhook-endpoints", { as: "wrong-app-secret", query: { per_page: 1 } });
    c.envelope(ex, "unauthenticated");
    c.rule(ex.headers.get("www-authenticate") !== null, "header WWW-Authenticate: missing on a 401");
  });

  await check("errors", "errors.insufficient_scope", "403 insufficient_scope naming the scope the --narrow-token lacks", async (c) => {
    if (!s.opts.narrow) return c.skip("no --narrow-token given (a token of the same account without one of the scopes)");
    const targets = { product: state.productJson, page: state.page };
    const bodies = { product: { title: state.productJsonTitle }, page: { seo_config: {} } };
    const held: string[] = [];
    for (const probe of PROBES) {
      const id = targets[probe.target];
      if (!id) continue;
      const path = probe.target === "product" ? product(id) : s.accountPath(`/pages/${encodeURIComponent(id)}`);
      const ex = await http.send(c, probe.method, path, { as: "narrow", body: probe.method === "PATCH" ? bodies[probe.target] : undefined });
      if (ex.status >= 200 && ex.status < 300) {
        held.push(probe.scope);
        continue;
      }
      const error = c.envelope(ex, "insufficient_scope");
      const required = (error?.details as { required_scope?: unknown } | undefined)?.required_scope;
      c.rule(required === probe.scope, `error.details.required_scope: expected "${probe.scope}" (${probe.method} ${probe.target}), got ${show(required)}`);
      if (held.length) c.note(`the token holds ${held.join(", ")}`);
      return;
    }
    c.problem(`the --narrow-token was allowed every request probed (${held.join(", ") || "none could be sent"}): give a token without one of those scopes`);
  });

  const unknown = (resource: string, path: string) =>
    check("errors", `${resource}.get (unknown id)`, "404 not_found in the error envelope, details.resource", async (c) => {
      const ex = await http.send(c, "GET", path);
      const error = c.envelope(ex, "not_found");
      const named = (error?.details as { resource?: unknown } | undefined)?.resource;
      if (error) c.rule(typeof named === "string" && named !== "", `error.details.resource: expected the kind of resource, got ${show(named)}`);
    });
  await unknown("products", product(s.randomUuid()));
  await unknown("pages", s.accountPath(`/pages/${s.randomUuid()}`));
  await unknown("jobs", s.accountPath(`/pages/jobs/${s.randomUuid()}`));

  await check("errors", "errors.validation", "400 validation_error with details.issues naming price", async (c) => {
    const ex = await http.send(c, "POST", s.accountPath("/products"), { body: { title: s.title("Missing price"), product_type: "physical" } });
    if (s.ledger.fromAnswer(ex, "product", "product (accepted without a price)")) c.note("a product was created; it is deleted with the others");
    const error = c.envelope(ex, "validation_error");
    const issues = (error?.details as { issues?: unknown } | undefined)?.issues;
    if (!c.rule(Array.isArray(issues), "error.details.issues: expected an array of { path, code, message }")) return;
    c.rule((issues as Array<{ path?: unknown }>).some((issue) => issue?.path === "price"), 'error.details.issues: no issue with path "price"');
  });

  await check("errors", "errors.invalid_json", "400 invalid_json", async (c) => {
    const ex = await http.send(c, "POST", s.accountPath("/products"), { body: '{"title": ', headers: { "content-type": "application/json" } });
    c.envelope(ex, "invalid_json");
  });

  await check("errors", "errors.invalid_cursor", "400 invalid_cursor", async (c) => {
    const ex = await http.send(c, "GET", s.accountPath("/products"), { query: { cursor: `${s.opts.runId}-not-a-cursor` } });
    c.envelope(ex, "invalid_cursor");
  });

  await check("errors", "pages.create (product and product_id)", "400 validation_error: exactly one of product and product_id", async (c) => {
    const productId = need(state.productMultipart, "products.create (multipart)");
    const body = { product_id: productId, product: { title: s.title("Both"), description: "Both given.", price: 1, product_type: "physical" } };
    const ex = await http.send(c, "POST", s.accountPath("/pages"), { body });
    if (s.ledger.fromAnswer(ex, "job", "job (accepted with both product and product_id)", "job_id", { inline: true })) c.note("a job was started; its page is deleted with the others");
    c.envelope(ex, "validation_error");
  });
}
