import type { CheckReport } from "@lp/webhooks";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { parseDuration } from "../../runtime/durations.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EVENT_TYPES } from "../../runtime/events.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { info } from "../../runtime/output.js";
import { toLines, toSummary, toTable } from "./format.js";

/** Event types `--event` takes: the catalogue, and the test event. */
const EVENTS: readonly string[] = [...EVENT_TYPES, "webhook.test"];

/** Options of `lp check-receiver`. */
export interface CheckReceiverCommandOptions {
  url: string;
  secret: string;
  previousSecret?: string;
  expectChallenge: boolean;
  headers: Record<string, string>;
  timeoutMs: number;
  event: string;
  json: boolean;
}

/** Turns the parsed flags into options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput, ctx: Context): CheckReceiverCommandOptions {
  const [url] = args;
  if (!/^https?:\/\/[^\s]+$/i.test(url ?? "")) throw new UsageError(`'${(url ?? "").slice(0, 200)}' is not an http(s) URL: give the receiver's URL, e.g. http://127.0.0.1:3000/webhooks.`);
  const secret = (flags.secret as string | undefined) ?? ctx.io.env.LP_WEBHOOK_SECRET;
  if (!secret) throw new UsageError("--secret: give the secret your receiver verifies with (whsec_...), or set LP_WEBHOOK_SECRET.");
  if (!/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new UsageError("--secret must be whsec_ followed by base64, as lp shows it.");
  const previousSecret = flags.previousSecret as string | undefined;
  if (previousSecret !== undefined && !/^(whsec_)?[A-Za-z0-9+/]+={0,2}$/.test(previousSecret)) throw new UsageError("--previous-secret must be whsec_ followed by base64.");
  const event = flags.event as string;
  if (!EVENTS.includes(event)) throw new UsageError(`--event: '${event}' is not an event type; one of ${EVENTS.join(", ")}.`);
  const timeoutMs = parseDuration(flags.timeout as string, "--timeout");
  if (timeoutMs < 1 || timeoutMs > 600_000) throw new UsageError("--timeout must be from 1ms to 10m.");
  return {
    url,
    secret,
    previousSecret,
    expectChallenge: flags.expectChallenge === true,
    headers: toHeaders((flags.header as string[] | undefined) ?? []),
    timeoutMs,
    event,
    json: flags.json === true,
  };
}

function toHeaders(entries: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const entry of entries) {
    const at = entry.indexOf(":");
    const name = entry.slice(0, Math.max(at, 0)).trim();
    if (at < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header: '${entry.slice(0, 80)}' must look like Name: value.`);
    if (/^(webhook-|content-|host$|connection$|transfer-encoding$)/i.test(name)) throw new UsageError(`--header: ${name} is set by the check itself.`);
    headers[name] = entry.slice(at + 1).trim();
  }
  return headers;
}

/** Runs the checks, prints the report, and exits 1 when a case failed. */
export async function run(opts: CheckReceiverCommandOptions, ctx: Context): Promise<void> {
  const { checkReceiver } = await import("@lp/webhooks");
  let report: CheckReport;
  try {
    report = await checkReceiver({
      url: opts.url,
      secret: opts.secret,
      previousSecret: opts.previousSecret,
      expectChallenge: opts.expectChallenge,
      headers: opts.headers,
      timeoutMs: opts.timeoutMs,
      event: opts.event as Parameters<typeof checkReceiver>[0]["event"],
    });
  } catch (error) {
    // Only options the library refuses reach here; the flags were checked, so this is a usage slip.
    if (error instanceof TypeError) throw new UsageError(error.message.replace(/^checkReceiver: /, ""));
    throw error;
  }
  const { io } = ctx;
  if (opts.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (io.stdoutIsTTY) io.stdout.write(toTable(report, ctx.colors.out));
  else io.stdout.write(toLines(report));
  info(ctx, toSummary(report));
  if (!report.ok) throw new CliError(EXIT.error, `The receiver failed ${report.failed.length} case(s): ${report.failed.join(", ")}.`, { code: "receiver_check_failed" });
}
