import type { Delivery, Receiver } from "@lp/webhooks";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { parseDuration } from "../../runtime/durations.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { info } from "../../runtime/output.js";
import { toChoice, toInt, toList } from "../../runtime/parse.js";
import { forward } from "./forward.js";
import { summarize, toLine, toRecord, type Expectation } from "./format.js";

/** Options of `lp listen`. */
export interface ListenOptions {
  port: number;
  secrets?: string[];
  register?: { events: string[]; environment?: "production" | "test"; printSecret: boolean };
  forwardTo?: string;
  respond?: number[];
  delayMs?: number;
  expect: Expectation[];
  timeoutMs?: number;
  json: boolean;
}

function toExpectation(spec: string): Expectation {
  const match = /^([^:\s]+)(?::(\d+))?$/.exec(spec);
  if (!match) throw new UsageError(`--expect: '${spec}' must look like TYPE or TYPE:COUNT.`);
  return { type: match[1], count: match[2] ? toInt(match[2], "--expect", 1)! : 1 };
}

/** Turns the parsed flags of `lp listen` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ListenOptions {
  const events = toList(flags.events);
  if (flags.register && !events?.length) throw new UsageError("--register needs --events a,b.");
  if (!flags.register && (events || flags.environment || flags.printSecret)) throw new UsageError("--events, --environment and --print-secret go with --register.");
  if (flags.register && flags.secret) throw new UsageError("--register learns the secret itself; drop --secret.");
  if (flags.forwardTo && flags.respond) throw new UsageError("--forward-to answers with the target's status; drop --respond.");
  if (flags.forwardTo && !/^https?:\/\//.test(flags.forwardTo)) throw new UsageError("--forward-to must be an http(s) URL.");
  const respond = flags.respond === undefined ? undefined : (toList(flags.respond) ?? []).map((s) => toInt(s, "--respond", 200, 599)!);
  const expect = ((flags.expect as string[] | undefined) ?? []).map(toExpectation);
  const timeout = flags.timeout ?? (expect.length ? "5m" : undefined);
  return {
    port: toInt(flags.port, "--port", 0, 65_535)!,
    secrets: flags.secret,
    register: flags.register
      ? { events: events!, environment: toChoice(flags.environment, "--environment", ["production", "test"] as const), printSecret: flags.printSecret === true }
      : undefined,
    forwardTo: flags.forwardTo,
    respond,
    delayMs: flags.delay === undefined ? undefined : parseDuration(flags.delay, "--delay"),
    expect,
    timeoutMs: timeout === undefined ? undefined : parseDuration(timeout, "--timeout"),
    json: flags.json === true,
  };
}

/**
 * Listens until a signal, the timeout, or (with `--expect`) every expectation is met. A registered
 * endpoint is deleted on the way out, whatever the outcome.
 */
export async function run(opts: ListenOptions, ctx: Context): Promise<void> {
  const { io } = ctx;
  const { createReceiver } = await import("@lp/webhooks");
  const receiver = await createReceiver({
    port: opts.port,
    host: "127.0.0.1",
    secret: opts.secrets,
    respond: opts.forwardTo ? (delivery: Delivery) => forward(opts.forwardTo!, delivery) : opts.respond,
    delayMs: opts.delayMs,
  });
  receiver.on("delivery", (delivery) => report(ctx, opts, delivery));
  info(ctx, `Listening on ${receiver.url}${opts.secrets ? " (verifying signatures)" : opts.register ? "" : " (no --secret: signatures are not checked)"}`);
  let endpointId: string | undefined;
  const shutdown = io.onShutdown();
  try {
    if (opts.register) endpointId = await register(ctx, opts, receiver);
    info(ctx, `Ready: receiving webhooks at ${receiver.url}`);
    await waitForEnd(opts, receiver, shutdown);
  } finally {
    if (endpointId) {
      const client = await ctx.client();
      await client.webhooks.delete(endpointId).then(
        () => info(ctx, `Deleted endpoint ${endpointId}.`),
        (error: Error) => info(ctx, `Could not delete endpoint ${endpointId}: ${error.message}`),
      );
    }
    await receiver.close();
  }
}

async function register(ctx: Context, opts: ListenOptions, receiver: Receiver): Promise<string> {
  const client = await ctx.client();
  const { events, environment, printSecret } = opts.register!;
  const endpoint = await client.webhooks.create({ url: receiver.url, events, ...(environment ? { environment } : {}) });
  receiver.setSecret(endpoint.secret);
  info(ctx, `Registered endpoint ${endpoint.id} (${endpoint.status}) for ${events.join(", ")} on ${client.baseUrl}`);
  if (endpoint.status !== "active") {
    info(ctx, `Warning: verification ${endpoint.verification?.outcome ?? "did not succeed"}${endpoint.verification?.error ? ` (${endpoint.verification.error})` : ""}; the endpoint is ${endpoint.status}.`);
  }
  if (printSecret) ctx.io.stdout.write(opts.json ? `${JSON.stringify({ endpoint_id: endpoint.id, secret: endpoint.secret })}\n` : `${endpoint.secret}\n`);
  return endpoint.id;
}

async function waitForEnd(opts: ListenOptions, receiver: Receiver, shutdown: Promise<string>): Promise<void> {
  const ends: Array<Promise<"met" | "timeout" | "signal">> = [shutdown.then(() => "signal" as const)];
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (opts.timeoutMs !== undefined) ends.push(new Promise((resolve) => (timer = setTimeout(() => resolve("timeout"), opts.timeoutMs))));
  if (opts.expect.length) {
    // No `within` of its own: the single --timeout above decides, so the summary covers every expectation.
    const day = 24 * 3_600_000;
    ends.push(Promise.all(opts.expect.map((e) => receiver.expect({ type: e.type, count: e.count, within: day }))).then(() => "met" as const, () => "signal" as const));
  }
  const end = await Promise.race(ends);
  clearTimeout(timer);
  if (opts.expect.length && end !== "met") throw new CliError(EXIT.error, summarize(opts.expect, receiver), { code: "expectation_unmet" });
}

function report(ctx: Context, opts: ListenOptions, delivery: Delivery): void {
  if (opts.json) {
    ctx.io.stdout.write(`${JSON.stringify(toRecord(delivery))}\n`);
    return;
  }
  const verification = delivery.verification;
  if (verification && !verification.ok) info(ctx, `Rejected ${delivery.webhookId ?? "request"} with 400: ${verification.reason}: ${verification.message}`);
  else if (delivery.challenge) info(ctx, `Answered a verification challenge (${delivery.response?.status}).`);
  else if (delivery.event) ctx.io.stdout.write(toLine(delivery, ctx.colors.out));
  else info(ctx, `Got a ${delivery.method} ${delivery.path} that is not an event (${delivery.response?.status}).`);
}
