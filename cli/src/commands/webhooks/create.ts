import type { WebhookEndpointCreateInput } from "@lp/client";
import { expandEvents } from "../../runtime/events.js";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { info, printItem } from "../../runtime/output.js";
import { compact, toChoice, toInt, toList } from "../../runtime/parse.js";
import { valueOrPrompt } from "../../runtime/prompt.js";
import { endpointWithSecretFields } from "./views.js";

/** Options of `lp webhooks create`. */
export interface CreateEndpointOptions {
  url?: string;
  events?: string[];
  environment?: "production" | "test";
  concurrency?: number;
  json: boolean;
}

/** Turns the parsed flags of `lp webhooks create` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput, ctx: Pick<Context, "canPrompt">): CreateEndpointOptions {
  const opts: CreateEndpointOptions = {
    url: flags.url,
    events: flags.events === undefined ? undefined : expandEvents(toList(flags.events)!),
    environment: toChoice(flags.environment, "--environment", ["production", "test"] as const),
    concurrency: toInt(flags.concurrency, "--concurrency", 1, 50),
    json: flags.json === true,
  };
  if (!ctx.canPrompt) {
    const missing = [["--url", opts.url], ["--events", opts.events?.length ? opts.events : undefined]].filter(([, v]) => v === undefined).map(([f]) => f);
    if (missing.length) throw new UsageError(`Missing ${missing.join(", ")}.`);
  }
  return opts;
}

/** Runs `lp webhooks create`. */
export async function run(opts: CreateEndpointOptions, ctx: Context): Promise<void> {
  const url = await valueOrPrompt(opts.url, "--url", ctx, "Endpoint URL");
  const events = opts.events?.length ? opts.events : expandEvents(toList(await valueOrPrompt(undefined, "--events", ctx, "Events (comma-separated)"))!);
  const client = await ctx.client();
  const endpoint = await client.webhooks.create(
    compact({ url, events, environment: opts.environment, concurrency_limit: opts.concurrency }) as WebhookEndpointCreateInput,
  );
  printItem(ctx, endpoint, endpointWithSecretFields, opts.json);
  if (!opts.json) {
    info(ctx, "Keep the secret: it is shown only now.");
    if (endpoint.status !== "active") info(ctx, `The endpoint is ${endpoint.status}; answer the challenge, then run 'lp webhooks verify ${endpoint.id}'.`);
  }
}
