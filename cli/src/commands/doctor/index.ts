import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp doctor`: checks a data dir, and with `--fix` repairs what it safely can. */
export function register(doctor: Command): void {
  doctor
    .description("Check a data dir: its format, SQLite's integrity and foreign-key checks, media rows name and media no row names, file modes")
    .option("--data-dir <dir>", "the data dir of lp serve (its SQLite database, lp.db)")
    .option("--fix", "copy every readable row into a fresh database, keeping the old file; write a missing format marker; quarantine orphan media; tighten modes; migrate a format-1 or format-2 dir; never deletes")
    .option("--json", "print the report as JSON");
  examples(doctor, ["lp doctor --data-dir .lp", "lp doctor --data-dir .lp --fix"]).action(lazy(() => import("./doctor.js")));
}
