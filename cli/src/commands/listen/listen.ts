import type { Delivery, Receiver } from "@lp/webhooks";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { parseDuration } from "../../runtime/durations.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { info } from "../../runtime/output.js";
import { expandEvents } from "../../runtime/events.js";
import { toChoice, toInt, toList } from "../../runtime/parse.js";
import { openTunnel, type Tunnel } from "../../runtime/tunnel.js";
import { forward } from "./forward.js";
import { createTally, toExpectation, type Expectation, type Tally } from "./expectations.js";
import { toLine, toRecord } from "./format.js";

/** Options of `lp listen`. */
export interface ListenOptions {
  port: number;
  secrets?: string[];
  register?: { events: string[]; environment?: "production" | "test"; printSecret: boolean; backfill?: string };
  forwardTo?: string;
  /** `--tunnel`: a public URL in front of the receiver. */
  tunnel: boolean;
  respond?: number[];
  delayMs?: number;
  expect: Expectation[];
  timeoutMs?: number;
  json: boolean;
}

/** Turns the parsed flags of `lp listen` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ListenOptions {
  const listed = toList(flags.events);
  if (listed && !listed.length) throw new UsageError("--events: give event types, or '*' for all of them.");
  const events = expandEvents(listed ?? ["*"]);
  if (!flags.register && (listed || flags.environment || flags.printSecret || flags.backfill)) throw new UsageError("--events, --environment, --print-secret and --backfill go with --register.");
  const backfill = flags.backfill as string | undefined;
  if (backfill !== undefined && !/^\d{1,12}(ms|s|m|h|d)$/.test(backfill)) throw new UsageError(`--backfill: '${backfill}' must be a duration such as 10m, 2h or 1d.`);
  if (flags.register && flags.secret) throw new UsageError("--register learns the secret itself; drop --secret.");
  if (flags.forwardTo && flags.respond) throw new UsageError("--forward-to answers with the target's status; drop --respond.");
  if (flags.forwardTo && !/^https?:\/\//.test(flags.forwardTo)) throw new UsageError("--forward-to must be an http(s) URL.");
  const respond = flags.respond === undefined ? undefined : (toList(flags.respond) ?? []).map((s) => toInt(s, "--respond", 200, 599)!);
  const expect = [
    ...((flags.expect as string[] | undefined) ?? []).map((spec) => toExpectation(spec, "messages")),
    ...((flags.expectAttempts as string[] | undefined) ?? []).map((spec) => toExpectation(spec, "attempts")),
  ];
  // Counting means verifying: without a secret nothing can be told apart from a forged request.
  if (expect.length && !flags.register && !flags.secret) throw new UsageError("--expect counts verified deliveries: give --secret whsec_... or --register.");
  const timeout = flags.timeout ?? (expect.length ? "5m" : undefined);
  return {
    port: toInt(flags.port, "--port", 0, 65_535)!,
    secrets: flags.secret,
    register: flags.register
      ? { events, environment: toChoice(flags.environment, "--environment", ["production", "test"] as const), printSecret: flags.printSecret === true, backfill }
      : undefined,
    forwardTo: flags.forwardTo,
    tunnel: flags.tunnel === true,
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
  const tally = createTally(opts.expect);
  receiver.on("delivery", (delivery) => {
    report(ctx, opts, delivery);
    tally.record(delivery);
  });
  info(ctx, `Listening on ${receiver.url}${opts.secrets ? " (verifying signatures)" : opts.register ? "" : " (no --secret: signatures are not checked)"}`);
  let endpointId: string | undefined;
  let tunnel: Tunnel | undefined;
  const shutdown = io.onShutdown();
  try {
    if (opts.tunnel) tunnel = await openTunnel(ctx, receiver.url);
    const publicUrl = tunnel ? await tunnel.getURL() : receiver.url;
    if (tunnel) info(ctx, `Tunnel: ${publicUrl} -> ${receiver.url}`);
    if (opts.register) endpointId = await register(ctx, opts, publicUrl, receiver);
    info(ctx, `Ready: receiving webhooks at ${receiver.url}`);
    await waitForEnd(opts, tally, shutdown);
  } finally {
    if (endpointId) {
      const client = await ctx.client();
      await client.webhooks.delete(endpointId).then(
        () => info(ctx, `Deleted endpoint ${endpointId}.`),
        (error: Error) => info(ctx, `Could not delete endpoint ${endpointId}: ${error.message}`),
      );
    }
    await tunnel?.close().catch(() => {});
    await receiver.close();
  }
}

async function register(ctx: Context, opts: ListenOptions, url: string, receiver: Receiver): Promise<string> {
  const client = await ctx.client();
  const { events, environment, printSecret } = opts.register!;
  const endpoint = await client.webhooks.create({ url, events, ...(environment ? { environment } : {}) });
  receiver.setSecret(endpoint.secret);
  info(ctx, `Registered endpoint ${endpoint.id} (${endpoint.status}) for ${events.join(", ")} on ${client.baseUrl}`);
  if (endpoint.status !== "active") {
    info(ctx, `Warning: verification ${endpoint.verification?.outcome ?? "did not succeed"}${endpoint.verification?.error ? ` (${endpoint.verification.error})` : ""}; the endpoint is ${endpoint.status}.`);
  }
  if (printSecret) ctx.io.stdout.write(opts.json ? `${JSON.stringify({ endpoint_id: endpoint.id, secret: endpoint.secret })}\n` : `${endpoint.secret}\n`);
  // The events it missed: replayed (admin API) once the receiver knows the secret; they arrive like any delivery.
  if (opts.register!.backfill) {
    const replayed = await client.admin.replay(endpoint.id, { since: opts.register!.backfill });
    info(ctx, `Backfill: ${replayed.replayed} event${replayed.replayed === 1 ? "" : "s"} since ${replayed.since} scheduled for delivery here.`);
  }
  return endpoint.id;
}

async function waitForEnd(opts: ListenOptions, tally: Tally, shutdown: Promise<string>): Promise<void> {
  const ends: Array<Promise<"met" | "timeout" | "signal">> = [shutdown.then(() => "signal" as const)];
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (opts.timeoutMs !== undefined) ends.push(new Promise((resolve) => (timer = setTimeout(() => resolve("timeout"), opts.timeoutMs))));
  if (opts.expect.length) ends.push(tally.met.then(() => "met" as const));
  const end = await Promise.race(ends);
  clearTimeout(timer);
  if (opts.expect.length && end !== "met") throw new CliError(EXIT.error, tally.summary(), { code: "expectation_unmet" });
  // The last reply is counted when decided, a few microtasks before it is written: let the write happen
  // before the receiver closes its sockets, or the sender would see a dropped connection and retry.
  if (end === "met") await new Promise((resolve) => setImmediate(resolve));
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
