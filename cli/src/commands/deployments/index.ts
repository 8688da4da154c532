import type { Command } from "commander";
import { examples, lazy, withJson, withList, withWait } from "../../runtime/define.js";

/** `lp deployments list|get`: deployments of a page. */
export function register(noun: Command): void {
  const list = noun
    .command("list")
    .description("Deployment history of a page, newest first")
    .argument("<page-id>", "page id")
    .option("--status <status>", "deploying, succeeded or failed");
  examples(withJson(withList(list)), ["lp deployments list 7d2e... --status failed"]).action(lazy(() => import("./list.js")));

  const get = noun.command("get").description("Show one deployment").argument("<page-id>", "page id").argument("<deployment-id>", "deployment id");
  examples(withJson(withWait(get, "deployment")), ["lp deployments get 7d2e... 91aa... --wait"]).action(lazy(() => import("./get.js")));
}
