import type { Command } from "commander";
import { examples, lazy, withJson, withWait } from "../../runtime/define.js";

/** `lp jobs get`: page generation jobs. */
export function register(noun: Command): void {
  const get = noun.command("get").description("Show a page generation job").argument("<job-id>", "job id from 'lp pages create'");
  examples(withJson(withWait(get, "job")), ["lp jobs get 5b1c... --wait", "lp jobs get 5b1c... --json | jq -r .status"]).action(lazy(() => import("./get.js")));
}
