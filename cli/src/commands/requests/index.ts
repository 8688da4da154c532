import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp requests`: the request journal of a local server (`/_admin/requests`, admin key). */
export function register(noun: Command): void {
  noun
    .option("--method <method>", "only this method, e.g. POST")
    .option("--path <glob>", "only paths (without the query) matching this glob; * is any run of characters")
    .option("--status <status>", "only this status (201) or class (4xx)")
    .option("--since <time>", "only requests started at or after this ISO 8601 time, or within this long (10m)")
    .option("--limit <n>", "how many to list, newest first (1 to 500; default 20)")
    .option("--follow", "print matching requests as they are answered, until Ctrl-C (or --expect is met)")
    .option("--expect <n>", "exit 0 once N matching requests were answered (those already answered count), 1 after --timeout")
    .option("--timeout <duration>", "with --expect: how long to wait", "30s")
    .option("--json", "print JSON: the array; with --follow or --expect one object per line");
  examples(noun, [
    "lp requests --method POST --path '/v1/accounts/*/products'",
    "lp requests --status 4xx --since 10m --json | jq '.[].path'",
    "lp requests --follow",
    "lp requests --method POST --path '*/deployments' --expect 1 --timeout 30s   # in CI, after the code under test ran",
  ]).action(lazy(() => import("./requests.js")));
}
