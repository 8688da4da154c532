import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { info } from "../../runtime/output.js";

/** Options of `lp admin reset`. */
export interface ResetOptions {
  yes: boolean;
  json: boolean;
}

/** Turns the parsed flags of `lp admin reset` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput, ctx: Pick<Context, "canPrompt">): ResetOptions {
  if (!flags.yes && !ctx.canPrompt) throw new UsageError("Missing --yes: reset deletes all data.");
  return { yes: flags.yes === true, json: flags.json === true };
}

/** Runs `lp admin reset`. */
export async function run(opts: ResetOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  if (!opts.yes && !(await ctx.prompt.confirm(`Delete all data on ${client.baseUrl}?`))) {
    throw new CliError(EXIT.error, "Reset cancelled.");
  }
  const result = await client.admin.reset();
  if (opts.json) ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  else info(ctx, `Reset ${client.baseUrl}.`);
}
