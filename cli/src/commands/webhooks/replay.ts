import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { info } from "../../runtime/output.js";

/** Options of `lp webhooks replay`. */
export interface ReplayOptions {
  endpointId: string;
  since?: string;
  until?: string;
  eventTypes?: string[];
  json: boolean;
}

/** A bound as the admin API takes it: a duration before now (`10m`), or an ISO 8601 time. */
function toBound(text: string | undefined, flag: string): string | undefined {
  if (text === undefined) return undefined;
  if (/^\d{1,12}(ms|s|m|h|d)$/.test(text)) return text;
  if (text.length <= 40 && /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text))) return new Date(text).toISOString();
  throw new UsageError(`${flag}: '${text}' must be a duration before now (10m, 2h, 1d) or an ISO 8601 time.`);
}

/** Turns the parsed flags of `lp webhooks replay` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): ReplayOptions {
  const endpointId = args[0]!;
  if (!/^we_/.test(endpointId)) throw new UsageError(`'${endpointId}' is not an endpoint id (we_...).`);
  const types = (flags.eventType as string[] | undefined)?.flatMap((t) => t.split(",")).map((t) => t.trim()).filter(Boolean);
  return { endpointId, since: toBound(flags.since, "--since"), until: toBound(flags.until, "--until"), eventTypes: types?.length ? types : undefined, json: flags.json === true };
}

/** Runs `lp webhooks replay` (admin key): schedules the deliveries and says how many. */
export async function run(opts: ReplayOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const result = await client.admin.replay(opts.endpointId, { since: opts.since, until: opts.until, event_types: opts.eventTypes as never });
  if (opts.json) ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    ctx.io.stdout.write(`${result.replayed}\n`);
    info(ctx, `Scheduled ${result.replayed} deliver${result.replayed === 1 ? "y" : "ies"} to ${result.endpoint_id} of the events from ${result.since} to ${result.until}.`);
  }
}
