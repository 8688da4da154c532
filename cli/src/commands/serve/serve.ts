import { resolve } from "node:path";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { parseDuration, parseDurationList } from "../../runtime/durations.js";
import { readCredentialsFile, removeCredentialsFile, writeCredentialsFile, type CredentialsFile } from "../../runtime/credentials-file.js";
import { toChoice, toInt } from "../../runtime/parse.js";
import { seedProducts } from "./fixtures.js";

/** Options of `lp serve`. */
export interface ServeCommandOptions {
  host: string;
  port: number;
  storage: "fs" | "memory";
  dataDir: string;
  publicUrl?: string;
  admin: boolean;
  retrySchedule?: number[];
  deployDelayMs?: number;
  generationStepMs?: number;
  publicOnly: boolean;
  seed?: string | true;
  printEnv: boolean;
  quiet: boolean;
}

/** Turns the parsed flags of `lp serve` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ServeCommandOptions {
  return {
    host: flags.host,
    port: toInt(flags.port, "--port", 0, 65_535)!,
    storage: toChoice(flags.storage, "--storage", ["fs", "memory"] as const)!,
    dataDir: flags.dataDir,
    publicUrl: flags.publicUrl,
    admin: flags.admin !== false,
    retrySchedule: flags.retrySchedule === undefined ? undefined : parseDurationList(flags.retrySchedule, "--retry-schedule"),
    deployDelayMs: flags.deployDelay === undefined ? undefined : parseDuration(flags.deployDelay, "--deploy-delay"),
    generationStepMs: flags.generationDelay === undefined ? undefined : parseDuration(flags.generationDelay, "--generation-delay"),
    publicOnly: flags.public === true,
    seed: flags.seed,
    printEnv: flags.printEnv === true,
    quiet: flags.quiet === true,
  };
}

/** The `KEY=value` lines of `--print-env`. */
export function toEnvLines(creds: CredentialsFile): string {
  const lines = [
    `LP_API_URL=${creds.api_url}`,
    `LP_TOKEN=${creds.token}`,
    `LP_ACCOUNT=${creds.account}`,
    `LP_APP_ID=${creds.app_id}`,
    `LP_APP_SECRET=${creds.app_secret}`,
  ];
  if (creds.admin_key) lines.push(`LP_ADMIN_KEY=${creds.admin_key}`);
  return `${lines.join("\n")}\n`;
}

/**
 * Starts the server, writes `<data-dir>/credentials.json`, prints the credentials, optionally seeds,
 * prints the readiness line, then runs until SIGINT/SIGTERM and closes cleanly (exit 0).
 */
export async function run(opts: ServeCommandOptions, ctx: Context): Promise<void> {
  const { io } = ctx;
  const startServer = (ctx.deps.startServer as typeof import("@lp/server").startServer | undefined) ?? (await import("@lp/server")).startServer;
  const dataDir = resolve(io.cwd, opts.dataDir);
  const server = await startServer({
    host: opts.host,
    port: opts.port,
    storage: opts.storage,
    dataDir,
    publicUrl: opts.publicUrl,
    admin: opts.admin,
    adminKey: ctx.flags.adminKey ?? io.env.LP_ADMIN_KEY,
    log: opts.quiet ? null : (line) => io.stderr.write(`${line}\n`),
    retrySchedule: opts.retrySchedule,
    deployDelayMs: opts.deployDelayMs,
    generationStepMs: opts.generationStepMs,
    publicOnly: opts.publicOnly,
    env: io.env,
  });
  const creds: CredentialsFile = {
    api_url: server.url,
    account: server.credentials.account_id,
    token: server.credentials.token,
    app_id: server.credentials.application_id,
    app_secret: server.credentials.client_secret,
    admin_key: server.adminKey,
  };
  const stopped = io.onShutdown();
  try {
    const credsPath = await writeCredentialsFile(dataDir, creds);
    const err = ctx.colors.err;
    io.stderr.write(`${err.bold("lp serve")} listening on ${err.cyan(server.url)} (storage: ${opts.storage}${opts.storage === "fs" ? `, ${dataDir}` : ""})\n`);
    if (opts.printEnv) io.stdout.write(toEnvLines(creds));
    else io.stderr.write(toEnvLines(creds).replace(/^/gm, "  ").trimEnd() + "\n");
    const dashboardUrl = server.dashboardLoginUrl?.();
    if (dashboardUrl) io.stderr.write(`  dashboard: ${err.cyan(dashboardUrl)} (one-time login; \`lp dashboard\` prints another)\n`);
    io.stderr.write(`  credentials written to ${credsPath} (lp commands run in ${io.cwd} use them)\n`);
    if (opts.seed !== undefined) {
      const { createClient } = await import("@lp/client");
      const client = createClient({ baseUrl: server.url, token: creds.token, accountId: creds.account });
      const count = await seedProducts(client, opts.seed, io.cwd);
      io.stderr.write(count ? `  seeded ${count} products\n` : "  seed skipped: the dev account already has products\n");
    }
    io.stderr.write(`Ready at ${server.url} (Ctrl+C to stop)\n`);
    const signal = await stopped;
    io.stderr.write(`${signal}: stopping...\n`);
  } finally {
    await server.close();
    const current = await readCredentialsFile(dataDir);
    // Memory storage forgets the credentials: remove the file, unless another server has since written its own.
    if (opts.storage === "memory" && current?.api_url === creds.api_url) await removeCredentialsFile(current.path);
  }
  io.stderr.write("Stopped.\n");
}
