import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { printClock, wantsJson } from "./print.js";

/** Options of `lp clock set`. */
export interface SetOptions {
  to: string;
  json: boolean;
}

/** Turns the parsed input of `lp clock set` into its options; usage errors only, no I/O. */
export function toOptions(input: CommandInput): SetOptions {
  const to = input.args[0] ?? "";
  // A timestamp with a date and a time (the API wants ISO 8601); a bare date would be read as local midnight by some.
  if (to.length > 40 || !/^\d{4}-\d{2}-\d{2}T/.test(to) || Number.isNaN(Date.parse(to))) {
    throw new UsageError(`'${to}' is not a timestamp; use ISO 8601, e.g. 2026-03-02T09:00:00Z.`);
  }
  return { to: new Date(to).toISOString(), json: wantsJson(input) };
}

/** Runs `lp clock set`: moves the clock forward to the time, once what fell due on the way has run. */
export async function run(opts: SetOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printClock(ctx, await client.admin.setClock(opts.to), opts.json);
}
