import { Command } from "commander";
import { examples } from "./runtime/define.js";
import type { Io } from "./runtime/io.js";
import { VERSION } from "./runtime/version.js";

type Register = { register(command: Command): void };

/**
 * Every command: name, summary, an example, and the module that declares its flags. Only the
 * command being run is declared in full (its code is imported later still, when it runs), so
 * `lp --help` loads nothing but commander and this table.
 */
const COMMANDS: Array<[name: string, summary: string, example: string | null, load: () => Promise<Register>]> = [
  ["products", "Create, list, update and delete products", "lp products list --type service", () => import("./commands/products/index.js")],
  ["pages", "Generate, list, update, delete and deploy landing pages", "lp pages create --product-id <id> --wait", () => import("./commands/pages/index.js")],
  ["jobs", "Poll page generation jobs", "lp jobs get <job-id> --wait", () => import("./commands/jobs/index.js")],
  ["deployments", "List and poll deployments of a page", "lp deployments list <page-id>", () => import("./commands/deployments/index.js")],
  ["webhooks", "Manage webhook endpoints (developer credentials)", "lp webhooks create --url <url> --events product.created", () => import("./commands/webhooks/index.js")],
  ["admin", "Local admin API: accounts, tokens, apps, reset, export, import", "lp admin tokens create acct_dev --scopes products:read", () => import("./commands/admin/index.js")],
  ["clock", "Show or move the server's clock (manual under lp serve --clock manual)", "lp clock advance 5m", () => import("./commands/clock/index.js")],
  ["requests", "List the API requests a local server answered (the request journal); wait for them with --expect", "lp requests --method POST --path '/v1/accounts/*/products'", () => import("./commands/requests/index.js")],
  ["config", "Read and write profiles in the config file", "lp config set api_url https://lp.example.com --profile staging", () => import("./commands/config/index.js")],
  ["serve", "Run the landing page service locally (API, admin API, media, builder, sites)", null, () => import("./commands/serve/index.js")],
  ["doctor", "Check a data dir (format, SQLite integrity and foreign keys, media, modes) and repair it with --fix", "lp doctor --data-dir .lp", () => import("./commands/doctor/index.js")],
  ["dashboard", "Print or open a one-time login URL for the local dashboard", "lp dashboard --open", () => import("./commands/dashboard/index.js")],
  ["listen", "Receive webhooks on loopback: answer challenges, verify signatures, print events", null, () => import("./commands/listen/index.js")],
  ["check-receiver", "Check that your webhook receiver accepts real deliveries and refuses forged ones", null, () => import("./commands/check-receiver/index.js")],
  ["trigger", "Cause a webhook event by driving the API with sample data", null, () => import("./commands/trigger/index.js")],
  ["conformance", "Check that an instance (hosted or local) answers as the contract says, with one stateful scenario", null, () => import("./commands/conformance/index.js")],
  ["api", "Send a raw request with the configured credentials", null, () => import("./commands/api/index.js")],
  ["completion", "Print a shell completion script", null, () => import("./commands/completion/index.js")],
];

/** Global flags that take a value: their value is not a command name. */
const VALUE_FLAGS = new Set(["--api-url", "--token", "--account", "--app-id", "--app-secret", "--admin-key", "--profile"]);

/** The command `args` run (`help X` counts as X); `completion` needs all of them. */
export function targetOf(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (VALUE_FLAGS.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg === "help" ? args[i + 1] : arg;
  }
  return undefined;
}

/** Declares the commands for `args`: all by name and summary, the one being run with its flags. */
export async function createProgram(io: Io, args: string[]): Promise<Command> {
  const program = new Command("lp")
    .description("lp: drive the landing page service (products, pages, deployments, webhooks) and run it locally.")
    .version(VERSION, "-V, --version", "print the version")
    .option("--api-url <url>", "API base URL (env LP_API_URL; default http://127.0.0.1:4010)")
    .option("--token <token>", "access token of the account plane (env LP_TOKEN)")
    .option("--account <id>", "account id (env LP_ACCOUNT)")
    .option("--app-id <id>", "application id, for webhooks (env LP_APP_ID)")
    .option("--app-secret <secret>", "client secret, for webhooks (env LP_APP_SECRET)")
    .option("--admin-key <key>", "admin key of a local server (env LP_ADMIN_KEY)")
    .option("--profile <name>", 'profile of the config file (env LP_PROFILE; default "default")')
    .exitOverride()
    .showHelpAfterError("(add --help for usage)")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  program.addHelpText("after", "\nExit codes: 0 ok, 1 API or runtime error, 2 usage, 4 authentication, 8 still pending after --wait.\nDocs: docs/cli.md\n");
  const target = targetOf(args);
  const all = target === "completion";
  for (const [name, summary, example, load] of COMMANDS) {
    const command = program.command(name).description(summary);
    // After the command's own declaration, so its examples come first and the table's joins their block.
    if (all || name === target) (await load()).register(command);
    if (example) examples(command, [example]);
  }
  return program;
}
