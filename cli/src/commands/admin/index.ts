import type { Command } from "commander";
import { examples, lazy, withJson } from "../../runtime/define.js";

/** `lp admin ...`: the local admin API (`/_admin`, admin key). */
export function register(noun: Command): void {
  const accounts = noun.command("accounts").description("Accounts");
  const createAccount = accounts
    .command("create")
    .description("Create an account")
    .option("--id <account-id>", "account id (default: generated)")
    .option("--environment <env>", "production or test (default production)")
    .option("--currency <code>", "ISO 4217 currency (default USD)")
    .option("--page-quota <n>", "how many pages it may have (default 100)")
    .option("--product-quota <n>", "how many products it may have, soft-deleted ones aside (default 10000)")
    .option("--media-quota-bytes <n>", "how many bytes of uploaded product images it may keep (default 524288000, 500 MiB)");
  examples(withJson(createAccount), ["lp admin accounts create --id acct_shop --currency EUR"]).action(lazy(() => import("./accounts-create.js")));

  const tokens = noun.command("tokens").description("Access tokens");
  const createToken = tokens
    .command("create")
    .description("Create an access token for an account (shown once)")
    .argument("<account-id>", "the account the token acts for")
    .option("--scopes <a,b>", "scopes (default: all of pages:read,pages:write,pages:deploy,products:read,products:write)")
    .option("--expires-in <duration>", "lifetime, e.g. 1h or 30d; default: no expiry");
  examples(withJson(createToken), ["lp admin tokens create acct_shop --scopes products:read --expires-in 1h --json | jq -r .token"]).action(
    lazy(() => import("./tokens-create.js")),
  );

  const apps = noun.command("apps").description("Partner applications");
  const createApp = apps
    .command("create")
    .description("Create a partner application (secret shown once)")
    .option("--name <name>", "application name")
    .option("--accounts <a,b>", "accounts it is installed on");
  examples(withJson(createApp), ['lp admin apps create --name "Zapier-like" --accounts acct_shop']).action(lazy(() => import("./apps-create.js")));

  examples(withJson(noun.command("reset").description("Delete all data (the dev credentials are put back)").option("--yes", "do not ask")), [
    "lp admin reset --yes",
  ]).action(lazy(() => import("./reset.js")));
  examples(noun.command("export").description("Write every table's rows and every media file as JSON (version 3)").option("--output <file>", "file to write (default stdout)"), [
    "lp admin export --output backup.json",
  ]).action(lazy(() => import("./export.js")));
  examples(withJson(noun.command("import").description("Replace all data with an export (version 3, or a format-2 export of version 1)").argument("<file>", "export file, or - for stdin")), [
    "lp admin import backup.json",
  ]).action(lazy(() => import("./import.js")));
}
