import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp doctor`: checks a data dir or a Redis prefix, and with `--fix` repairs what it safely can. */
export function register(doctor: Command): void {
  doctor
    .description("Check a data dir or Redis prefix: records against their schemas, list indexes, media, file modes, format version")
    .option("--data-dir <dir>", "the data dir of lp serve --storage fs")
    .option("--redis-url <url>", "the Redis of lp serve --storage redis (or LP_REDIS_URL)")
    .option("--redis-prefix <prefix>", "its key prefix", "lp:")
    .option("--fix", "quarantine unreadable records, rebuild list indexes, write a missing format marker, tighten file modes; never deletes")
    .option("--json", "print the report as JSON");
  examples(doctor, ["lp doctor --data-dir .lp", "lp doctor --data-dir .lp --fix", "lp doctor --redis-url redis://127.0.0.1:6379/0 --redis-prefix lp:"]).action(
    lazy(() => import("./doctor.js")),
  );
}
