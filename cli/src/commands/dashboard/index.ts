import type { Command } from "commander";
import { examples, lazy } from "../../runtime/define.js";

/** `lp dashboard`: a one-time login URL of a running local server's dashboard. */
export function register(dashboard: Command): void {
  dashboard
    .description("Print (or open) a one-time login URL for the dashboard of a running lp serve")
    .option("--open", "open it in the default browser as well");
  examples(dashboard, ["lp dashboard", "lp dashboard --open", "lp dashboard --api-url http://127.0.0.1:4011"]).action(lazy(() => import("./dashboard.js")));
}
