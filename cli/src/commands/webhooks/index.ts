import type { Command } from "commander";
import { examples, lazy, withJson, withList } from "../../runtime/define.js";
import { collect } from "../../runtime/parse.js";

const id = (command: Command) => command.argument("<endpoint-id>", "webhook endpoint id (we_...)");

/** `lp webhooks ...`: webhook endpoints of the application (developer credentials). */
export function register(noun: Command): void {
  const create = noun
    .command("create")
    .description("Register an endpoint; prints its secret once and attempts verification")
    .option("--url <url>", "where deliveries go")
    .option("--events <a,b>", "event types to subscribe to, comma-separated; '*' for every event")
    .option("--environment <env>", "production or test (default production)")
    .option("--concurrency <n>", "deliveries in flight at once, 1 to 50 (default 4)");
  examples(withJson(create), [
    "lp webhooks create --url https://example.com/hooks --events product.created,page.created",
    "lp webhooks create --url http://127.0.0.1:8787 --events deployment.succeeded --environment test --json | jq -r .secret",
  ]).action(lazy(() => import("./create.js")));

  examples(withJson(withList(noun.command("list").description("List the application's endpoints"))), ["lp webhooks list"]).action(
    lazy(() => import("./list.js")),
  );
  examples(withJson(id(noun.command("get").description("Show an endpoint"))), ["lp webhooks get we_3a..."]).action(lazy(() => import("./get.js")));

  const update = id(noun.command("update").description("Update an endpoint; a new URL needs 'lp webhooks verify' again"))
    .option("--url <url>", "new URL")
    .option("--events <a,b>", "replace the subscriptions")
    .option("--status <status>", "paused or disabled (verify to reactivate)")
    .option("--concurrency <n>", "deliveries in flight at once");
  examples(withJson(update), ["lp webhooks update we_3a... --status paused", "lp webhooks update we_3a... --events page.created"]).action(
    lazy(() => import("./update.js")),
  );

  examples(withJson(id(noun.command("delete").description("Delete an endpoint"))), ["lp webhooks delete we_3a..."]).action(lazy(() => import("./delete.js")));
  examples(withJson(id(noun.command("verify").description("Send a signed verification challenge now"))), ["lp webhooks verify we_3a..."]).action(
    lazy(() => import("./verify.js")),
  );
  examples(withJson(id(noun.command("rotate-secret").description("New secret (shown once); the old one signs for 24 more hours"))), [
    "lp webhooks rotate-secret we_3a... --json | jq -r .secret",
  ]).action(lazy(() => import("./rotate-secret.js")));
  examples(withJson(id(noun.command("test").description("Schedule a signed webhook.test delivery"))), ["lp webhooks test we_3a..."]).action(
    lazy(() => import("./test.js")),
  );

  const deliveries = id(noun.command("deliveries").description("Deliveries of an endpoint, newest first, with attempts"))
    .option("--status <status>", "pending, succeeded, failed or skipped")
    .option("--event-type <type>", "only this event type");
  examples(withJson(withList(deliveries)), ["lp webhooks deliveries we_3a... --status failed"]).action(lazy(() => import("./deliveries.js")));

  const retry = noun
    .command("retry")
    .description("Retry a stored delivery (asynchronously); the endpoint is found when only the delivery id is given")
    .argument("<endpoint-or-delivery-id>", "endpoint id (we_...), or the delivery id alone")
    .argument("[delivery-id]", "delivery id (dlv_...): the webhook-id that lp listen prints");
  examples(withJson(retry), ["lp webhooks retry dlv_91...", "lp webhooks retry we_3a... dlv_91..."]).action(lazy(() => import("./retry.js")));

  const replay = id(noun.command("replay").description("Send an endpoint the past events it would have been sent, again or for the first time (admin key)"))
    .option("--since <time>", "oldest event: a duration before now (10m, 2h, 1d) or an ISO 8601 time; default the oldest kept (lp serve --event-retention)")
    .option("--until <time>", "newest event, likewise; default now")
    .option("--event-type <type>", "only this event type (repeatable, or comma-separated)", collect);
  examples(withJson(replay), ["lp webhooks replay we_3a... --since 10m", "lp webhooks replay we_3a... --since 2026-03-01T09:00:00Z --event-type deployment.succeeded"]).action(
    lazy(() => import("./replay.js")),
  );
}
