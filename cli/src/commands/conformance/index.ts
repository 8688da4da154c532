import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp conformance [URL]`: hold any instance, hosted or local, to the contract with one stateful scenario. */
export function register(conformance: Command): void {
  conformance
    .description("Run one stateful scenario against an instance (hosted or lp serve) and report every place it departs from the contract")
    .argument("[url]", "the instance's base URL, without /v1 (default: --api-url, LP_API_URL or the profile's)")
    .option("--narrow-token <token>", "a token of the same account lacking a scope, for the 403 check (env LP_NARROW_TOKEN; skipped without it)")
    .option("--skip-webhooks", "leave out the webhook checks (then no --app-id and --app-secret are needed)")
    .option("--tunnel", "receive the webhooks through a public quick tunnel (cloudflared via untun, as listhen's --tunnel; needs the internet), for an instance that cannot reach this machine")
    .option("--webhook-environment <env>", "environment of the endpoint: production or test, as the account's", "production")
    .option("--keep", "leave what the run made instead of deleting it at the end")
    .option("--image <file>", "image uploaded by the multipart create (default: the sample shipped with lp)")
    .option("--poll-interval <duration>", "time between polls of jobs, deployments and deliveries, 2s to 5s", "2s")
    .option("--job-timeout <duration>", "give up on a generation job after this long", "5m")
    .option("--deploy-timeout <duration>", "give up on a deployment after this long", "5m")
    .option("--webhook-timeout <duration>", "give up waiting for a delivery after this long", "1m")
    .option("--request-timeout <duration>", "a request without an answer after this long stops the run", "30s")
    .option("--json", "print the whole report as one JSON object");
  conformance.addHelpText(
    "after",
    `
What it does, in order, with the configured credentials (token, account; app id and secret for webhooks):

  products      create (JSON, multipart with an image, a service), get, list following the cursor
                to the end, filter, update, soft delete (then 404 and absent from lists)
  idempotency   the same Idempotency-Key and body replays the first answer (Idempotent-Replayed),
                another body is 422 idempotency_key_reused
  pages         create from a product and with an inline product, poll both jobs to completed
                (steps in order, page_id, builder_url, completed_at), get, patch theme and SEO,
                list (q, product_id), delete (then 404)
  deployments   202 with Location, 409 while one is in flight, poll to succeeded, the deployed URL
                answers, the page published
  errors        401 without a token, 403 insufficient_scope with --narrow-token, 404 for unknown
                ids, 400 validation_error, invalid_json and invalid_cursor, X-Request-Id everywhere
  webhooks      an endpoint pointing at a receiver this command runs on 127.0.0.1 (or --tunnel):
                the signed challenge answered and the endpoint active, a product.updated delivery
                verified with its secret, rotate-secret (a delivery verifies with both secrets), the
                deliveries list, delete

Every answer is checked against the zod schemas of @lp/contract (the ones lp's server and its OpenAPI
document use), the error table and the event catalogue. A failure names what came against what was
expected: "products.create: data.preview_image_url missing", "deployments.create: status 200,
expected 202". The run creates only records whose titles carry its marker (lp conformance lpc-...),
says so before it starts, and deletes them at the end, also after a failure or Ctrl-C (--keep leaves
them). The first deployment is sent with Lp-Simulate: slow, so a local lp keeps it in flight long
enough to refuse a second one; a hosted instance ignores that header.

Output: a table on a terminal; otherwise one tab-separated line per check (check, expected, got,
result, detail); --json prints the whole report. A summary goes to stderr. Exit 0 when every check
passed (skips allowed), 1 when any failed or the instance stopped answering, 2 when the run could not
start (unreachable, credentials refused, usage).`,
  );
  examples(conformance, [
    "lp conformance                                  # the configured instance, e.g. lp serve in this folder",
    "LP_NARROW_TOKEN=\"$READ_ONLY_TOKEN\" lp conformance https://api.example.com --profile staging",
    "lp conformance https://api.example.com --tunnel   # the hosted service delivers webhooks to this machine",
    "lp conformance http://127.0.0.1:4010 --skip-webhooks --json > conformance.json",
  ]).action(lazy(() => import("./conformance.js")));
}
