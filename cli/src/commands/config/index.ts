import type { Command } from "commander";
import { examples, lazy, withJson } from "../../runtime/define.js";

/** `lp config set|get|list`: profiles in `$XDG_CONFIG_HOME/lp/config.json`. */
export function register(noun: Command): void {
  examples(noun.command("set").description("Set a key of a profile (--profile, default \"default\")").argument("<key>", "api_url, token, account, app_id, app_secret or admin_key").argument("<value>", "the value; empty removes it"), [
    "lp config set api_url https://lp.example.com",
    "lp config set token lp_abc --profile staging",
  ]).action(lazy(() => import("./set.js")));
  examples(noun.command("get").description("Print the effective value of a key (flag, env, profile, dev credentials, default)").argument("<key>", "config key"), [
    "lp config get api_url",
  ]).action(lazy(() => import("./get.js")));
  examples(withJson(noun.command("list").description("Show every key with its value and where it came from").option("--show-secrets", "print secrets in full")), [
    "lp config list",
    "LP_PROFILE=staging lp config list --json",
  ]).action(lazy(() => import("./list.js")));
}
