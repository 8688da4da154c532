import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { printClock, wantsJson } from "./print.js";

/** Options of `lp clock advance`. */
export interface AdvanceOptions {
  /** As the admin API takes it: a whole number and a unit. */
  duration: string;
  json: boolean;
}

/** Turns the parsed input of `lp clock advance` into its options; usage errors only, no I/O. */
export function toOptions(input: CommandInput): AdvanceOptions {
  const duration = input.args[0]?.trim() ?? "";
  if (!/^\d{1,12}(ms|s|m|h|d)$/.test(duration)) throw new UsageError(`'${input.args[0]}' is not a duration; use a whole number and a unit, e.g. 30s, 5m, 2h or 7d.`);
  return { duration, json: wantsJson(input) };
}

/** Runs `lp clock advance`: answers once what fell due has run, with the new time. */
export async function run(opts: AdvanceOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printClock(ctx, await client.admin.advanceClock(opts.duration), opts.json);
}
