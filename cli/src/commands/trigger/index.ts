import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";
import { EVENT_TYPES } from "../../runtime/events.js";
import { collect } from "../../runtime/parse.js";

/** `lp trigger`: cause a webhook event with real API calls. */
export function register(trigger: Command): void {
  trigger
    .description("Cause a webhook event by driving the API with sample data (lp trigger --list shows them)")
    .argument("[event]", "the event to cause, e.g. product.created")
    .option("--list", "list the events and what lp trigger does for each")
    .option("--override <path=value>", "change the fixture by dot path, e.g. product.title=Mug (values are JSON when they parse); repeatable", collect)
    .option("--fixture <file>", "fixture file instead of fixtures/trigger.json (image paths are relative to it)")
    .option("--timeout <duration>", "how long to wait for jobs and deployments", "5m")
    .option("--json", "print the resources made, as one JSON object");
  trigger.addHelpText(
    "after",
    `
Events: ${EVENT_TYPES.join(", ")}.

Every call goes through the API with the configured credentials, exactly as your code would make it,
so each event arrives signed at every endpoint subscribed to it, together with the events of the
steps before it (a page needs a product: product.created comes first). Failures are caused with the
Lp-Simulate header, which only lp serve honours. Resources are left in place; --json lists them.

The fixture (fixtures/trigger.json) has five sections: product, product_update, page, page_update and
checkout (form values by field key). --override reaches into them by dot path:
  product.title="Blue apron"   product.price=19.5   page.options.language=fr   checkout.email=a@b.c`,
  );
  examples(trigger, [
    "lp trigger --list",
    "lp trigger product.created",
    "lp trigger checkout.submitted --override checkout.name='Grace Hopper' --json",
    "lp listen --register --expect checkout.submitted   # in one terminal; then, in another:",
    "lp trigger checkout.submitted",
  ]).action(lazy(() => import("./trigger.js")));
}
