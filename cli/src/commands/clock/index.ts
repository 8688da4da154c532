import type { Command } from "commander";
import { examples, lazy, withJson } from "../../runtime/define.js";

/** `lp clock ...`: the server's clock (`/_admin/clock`, admin key); moved only under `lp serve --clock manual`. */
export function register(noun: Command): void {
  // `--json` is the noun's, so `lp clock --json` and `lp clock advance 5m --json` both take it (commander
  // gives a parent's option to the parent wherever it stands).
  withJson(noun).action(lazy(() => import("./show.js")));
  examples((noun.command("advance").description("Move a manual clock forward and run what fell due (retries, job steps)").argument("<duration>", "how far, e.g. 30s, 5m, 2h or 7d")), [
    "lp clock advance 5m",
  ]).action(lazy(() => import("./advance.js")));
  examples((noun.command("set").description("Move a manual clock forward to a time (never back)").argument("<timestamp>", "ISO 8601, e.g. 2026-03-02T09:00:00Z")), [
    "lp clock set 2026-03-02T09:00:00Z",
  ]).action(lazy(() => import("./set.js")));
}
