import type { WebhookEndpointUpdateInput } from "@lp/client";
import { expandEvents } from "../../runtime/events.js";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { info, printItem } from "../../runtime/output.js";
import { compact, toChoice, toInt, toList } from "../../runtime/parse.js";
import { endpointFields } from "./views.js";

/** Options of `lp webhooks update`. */
export interface UpdateEndpointOptions {
  id: string;
  body: WebhookEndpointUpdateInput;
  json: boolean;
}

/** Turns the parsed flags of `lp webhooks update` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): UpdateEndpointOptions {
  const body = compact({
    url: flags.url,
    events: flags.events === undefined ? undefined : expandEvents(toList(flags.events)!),
    status: toChoice(flags.status, "--status", ["paused", "disabled"] as const),
    concurrency_limit: toInt(flags.concurrency, "--concurrency", 1, 50),
  });
  if (!Object.keys(body).length) throw new UsageError("Nothing to update: give --url, --events, --status or --concurrency.");
  return { id: args[0], body, json: flags.json === true };
}

/** Runs `lp webhooks update`. */
export async function run(opts: UpdateEndpointOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const endpoint = await client.webhooks.update(opts.id, opts.body);
  printItem(ctx, endpoint, endpointFields, opts.json);
  if (!opts.json && endpoint.status === "pending_verification") info(ctx, `Run 'lp webhooks verify ${opts.id}' to activate it.`);
}
