import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp doctor`: checks a data dir or a Redis prefix, and with `--fix` repairs what it safely can. */
export function register(doctor: Command): void {
  doctor
    .description("Check a data dir or Redis prefix: format, records against their schemas, SQLite's integrity check (or Redis key sets), media and orphans, file modes")
    .option("--data-dir <dir>", "the data dir of lp serve (its SQLite database, lp.db)")
    .option("--redis-url <url>", "the Redis of lp serve --storage redis (or LP_REDIS_URL)")
    .option("--redis-prefix <prefix>", "its key prefix", "lp:")
    .option("--fix", "copy every readable row into a fresh database, keeping the old file (Redis: quarantine unreadable records, rebuild key sets); write a missing format marker; tighten modes; migrate a format-1 dir; never deletes")
    .option("--json", "print the report as JSON");
  examples(doctor, ["lp doctor --data-dir .lp", "lp doctor --data-dir .lp --fix", "lp doctor --redis-url redis://127.0.0.1:6379/0 --redis-prefix lp:"]).action(
    lazy(() => import("./doctor.js")),
  );
}
