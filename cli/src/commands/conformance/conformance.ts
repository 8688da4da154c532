import { randomBytes, randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { Receiver } from "@lp/webhooks";
import { resolveConfig } from "../../runtime/config.js";
import { toClientOptions, type Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { parseDuration } from "../../runtime/durations.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { findFixture, openFixtureImage } from "../../runtime/fixtures.js";
import { toChoice } from "../../runtime/parse.js";
import { createProgress } from "../../runtime/progress.js";
import { openTunnel, type Tunnel } from "../../runtime/tunnel.js";
import { loadContract, type Contract } from "./contract.js";
import { toLines, toSummary, toTable } from "./format.js";
import { createHttp } from "./http.js";
import { preflight } from "./preflight.js";
import { abortableSleep } from "./scenario-context.js";
import { runScenario } from "./scenario.js";

/** Options of `lp conformance`. */
export interface ConformanceOptions {
  /** The instance's base URL, when given as the argument (else the configured one). */
  url?: string;
  narrowToken?: string;
  skipWebhooks: boolean;
  tunnel: boolean;
  webhookEnvironment: "production" | "test";
  keep: boolean;
  /** An image file for the multipart create; default the sample that ships with lp. */
  image?: string;
  pollIntervalMs: number;
  jobTimeoutMs: number;
  deployTimeoutMs: number;
  webhookTimeoutMs: number;
  requestTimeoutMs: number;
  json: boolean;
}

const HOUR_MS = 3_600_000;

function toTimeout(text: string, flag: string): number {
  const ms = parseDuration(text, flag);
  if (ms < 1 || ms > HOUR_MS) throw new UsageError(`${flag} must be from 1ms to 1h, got ${text}.`);
  return ms;
}

/** Turns the parsed flags into options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput, ctx: Context): ConformanceOptions {
  const [url] = args;
  if (url !== undefined && !/^https?:\/\/[^\s]+$/i.test(url)) throw new UsageError(`'${url.slice(0, 200)}' is not an http(s) URL: give the instance's base URL, e.g. https://api.example.com (no /v1).`);
  if (url !== undefined && /\/v1\/*$/.test(url)) throw new UsageError(`Give the instance's base URL without /v1: ${url.replace(/\/v1\/*$/, "")}`);
  if (url !== undefined && ctx.flags.apiUrl !== undefined && ctx.flags.apiUrl !== url) throw new UsageError("Give the instance's URL once: as the argument or as --api-url, not both.");
  if (flags.tunnel && flags.skipWebhooks) throw new UsageError("--tunnel is for the webhook checks; drop it or --skip-webhooks.");
  let pollIntervalMs = parseDuration(flags.pollInterval ?? "2s", "--poll-interval");
  if (pollIntervalMs < 2000 || pollIntervalMs > 5000) throw new UsageError(`--poll-interval: must be from 2s to 5s (the service asks for polls every 2 to 5 seconds), got ${flags.pollInterval}.`);
  // As for --wait: an unbounded override for tests and local servers.
  const override = ctx.io.env.LP_POLL_INTERVAL_MS;
  if (override !== undefined && override !== "") pollIntervalMs = parseDuration(override, "LP_POLL_INTERVAL_MS");
  const narrowToken = (flags.narrowToken as string | undefined) ?? (ctx.io.env.LP_NARROW_TOKEN || undefined);
  return {
    url: url?.replace(/\/+$/, ""),
    narrowToken,
    skipWebhooks: flags.skipWebhooks === true,
    tunnel: flags.tunnel === true,
    webhookEnvironment: toChoice(flags.webhookEnvironment ?? "production", "--webhook-environment", ["production", "test"] as const)!,
    keep: flags.keep === true,
    image: flags.image as string | undefined,
    pollIntervalMs,
    jobTimeoutMs: toTimeout(flags.jobTimeout ?? "5m", "--job-timeout"),
    deployTimeoutMs: toTimeout(flags.deployTimeout ?? "5m", "--deploy-timeout"),
    webhookTimeoutMs: toTimeout(flags.webhookTimeout ?? "1m", "--webhook-timeout"),
    requestTimeoutMs: toTimeout(flags.requestTimeout ?? "30s", "--request-timeout"),
    json: flags.json === true,
  };
}

/** What a test may replace in a run: the contract the checks come from, the run's marker, the clock. */
export interface ConformanceOverrides {
  contract?: Contract;
  runId?: string;
  now?: () => number;
}

/** Runs the scenario against the configured instance, prints the report, exits 1 when anything departs. */
export async function run(opts: ConformanceOptions, ctx: Context): Promise<void> {
  return conform(opts, ctx);
}

/** {@link run}, with what tests replace. */
export async function conform(opts: ConformanceOptions, ctx: Context, overrides: ConformanceOverrides = {}): Promise<void> {
  const { io } = ctx;
  const now = overrides.now ?? Date.now;
  const startedAt = now();
  // The usual resolution (flag, env, profile, dev credentials), with the argument as the API URL.
  const { values } = await resolveConfig(opts.url ? { ...ctx.flags, apiUrl: opts.url } : ctx.flags, io.env, io.cwd);
  if (!values.token) throw new UsageError("No access token: pass --token or set LP_TOKEN (a token of the account the run creates its records in, with every scope).");
  if (!values.account) throw new UsageError("No account: pass --account or set LP_ACCOUNT.");
  if (!opts.skipWebhooks && (!values.app_id || !values.app_secret)) {
    throw new UsageError("The webhook checks need an application: pass --app-id and --app-secret (LP_APP_ID, LP_APP_SECRET), or --skip-webhooks.");
  }
  const image = await openImage(opts.image, io.cwd);
  const base = toClientOptions(values, ctx.deps);
  const { createClient } = await import("@lp/client");
  const controller = new AbortController();
  const http = createHttp({
    clients: {
      main: createClient(base),
      anonymous: createClient({ ...base, token: undefined, appId: undefined, appSecret: undefined }),
      narrow: opts.narrowToken ? createClient({ ...base, token: opts.narrowToken }) : undefined,
      "wrong-app-secret": values.app_id ? createClient({ ...base, appSecret: `whsec_wrong_${randomBytes(8).toString("hex")}` }) : undefined,
    },
    fetch: ctx.deps.fetch ?? globalThis.fetch,
    signal: controller.signal,
    requestTimeoutMs: opts.requestTimeoutMs,
  });
  await preflight(http, { apiUrl: base.baseUrl, account: values.account, developer: !opts.skipWebhooks, endpointId: `we_${randomBytes(8).toString("hex")}`, productId: randomUUID() });

  const contract = overrides.contract ?? (await loadContract());
  const runId = overrides.runId ?? `lpc-${randomBytes(4).toString("hex")}`;
  let receiver: Receiver | null = null;
  let tunnel: Tunnel | undefined;
  const progress = createProgress(io);
  try {
    let hookUrl: string | null = null;
    if (!opts.skipWebhooks) {
      const { createReceiver } = await import("@lp/webhooks");
      receiver = await createReceiver({ host: "127.0.0.1", port: 0 });
      if (opts.tunnel) {
        tunnel = await openTunnel(ctx, receiver.url).catch((error: Error) => {
          throw new CliError(EXIT.usage, `${error.message} Nothing was created.`, { code: "tunnel_failed" });
        });
        const publicUrl = (await tunnel.getURL()).replace(/\/+$/, "");
        io.stderr.write(`Tunnel: ${publicUrl} -> ${receiver.url}\n`);
        hookUrl = `${publicUrl}/lp-conformance/${runId}`;
      } else hookUrl = `${receiver.url}/lp-conformance/${runId}`;
    }
    io.stderr.write(announce(base.baseUrl, values.account, values.app_id ?? null, runId, hookUrl, opts.keep));
    void io.onShutdown().then(() => controller.abort());
    const report = await runScenario(
      {
        runId,
        account: values.account,
        application: opts.skipWebhooks ? null : (values.app_id ?? null),
        pollIntervalMs: opts.pollIntervalMs,
        jobTimeoutMs: opts.jobTimeoutMs,
        deployTimeoutMs: opts.deployTimeoutMs,
        webhookTimeoutMs: opts.webhookTimeoutMs,
        narrow: opts.narrowToken !== undefined,
        webhooks: hookUrl ? { environment: opts.webhookEnvironment, url: hookUrl } : false,
      },
      { contract, http, sleep: abortableSleep, now, signal: controller.signal, randomUuid: randomUUID, receiver, imageFile: async () => image, progress: (text) => progress.update(text) },
      { apiUrl: base.baseUrl, keep: opts.keep, startedAt },
    );
    progress.stop();
    if (opts.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    else if (io.stdoutIsTTY) io.stdout.write(toTable(report, ctx.colors.out));
    else io.stdout.write(toLines(report));
    io.stderr.write(toSummary(report));
    if (report.aborted?.reason === "interrupted") throw new CliError(EXIT.error, `Interrupted at ${report.aborted.step}.`, { code: "interrupted" });
    if (!report.ok) {
      const failed = report.checks.filter((c) => c.verdict === "fail").map((c) => c.id);
      const what = report.aborted ? `stopped at ${report.aborted.step}` : `${failed.length} check(s) failed: ${failed.slice(0, 5).join(", ")}${failed.length > 5 ? ", ..." : ""}`;
      throw new CliError(EXIT.error, `The instance departs from the contract: ${what}.`, { code: "conformance_failed" });
    }
  } finally {
    progress.stop();
    await tunnel?.close().catch(() => {});
    await receiver?.close();
  }
}

/** The image the multipart create uploads: `--image`, or the sample shipped inside lp (found from its modules). */
async function openImage(path: string | undefined, cwd: string): Promise<File> {
  const { imageFromFile } = await import("@lp/client");
  if (path === undefined) return openFixtureImage(await findFixture("images/apron.png", "--image"));
  const file = resolve(cwd, path);
  if (!(await stat(file).catch(() => null))?.isFile()) throw new UsageError(`--image: '${path}' is not a file.`);
  const image = await imageFromFile(file);
  // Its type, from the extension, is what the instance must report for the bytes it detects.
  if (!image.type.startsWith("image/")) throw new UsageError(`--image: '${path}' must be a .png, .jpg, .jpeg, .gif, .webp, .avif or .svg file.`);
  return image;
}

/** What the run will make, said before it makes anything. */
function announce(url: string, account: string, app: string | null, runId: string, hookUrl: string | null, keep: boolean): string {
  const lines = [
    `lp conformance ${runId} against ${url}, account ${account}. It will create, each title marked "lp conformance ${runId}":`,
    "  5 products (one by an inline page creation), 2 pages (one deployed), and nothing else in the account",
  ];
  if (hookUrl) lines.push(`  1 webhook endpoint of application ${app}, pointing at ${hookUrl}`);
  lines.push(keep ? "  and keep them (--keep)." : "  and delete all of it at the end, also after a failure or Ctrl-C (--keep leaves it).");
  return `${lines.join("\n")}\n`;
}
