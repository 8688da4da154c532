import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { printClock } from "./print.js";

/** Options of `lp clock`. */
export interface ShowOptions {
  json: boolean;
}

/** Turns the parsed flags of `lp clock` into its options. */
export function toOptions({ flags }: CommandInput): ShowOptions {
  return { json: flags.json === true };
}

/** Runs `lp clock`: prints the server's time and its clock's mode. */
export async function run(opts: ShowOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printClock(ctx, await client.admin.clock(), opts.json);
}
