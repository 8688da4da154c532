import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { assertConfigKey, type ConfigKey } from "../../runtime/config-file.js";
import { CliError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";

/** Options of `lp config get`. */
export interface GetOptions {
  key: ConfigKey;
}

/** Turns the parsed flags of `lp config get` into its options; usage errors only, no I/O. */
export function toOptions({ args }: CommandInput): GetOptions {
  const key = args[0];
  assertConfigKey(key);
  return { key };
}

/** Prints the value in full (this is how scripts read it); exit 1 when it is not set anywhere. */
export async function run(opts: GetOptions, ctx: Context): Promise<void> {
  const config = await ctx.config({ allowMissingProfile: true });
  const value = config.values[opts.key];
  if (value === undefined) throw new CliError(EXIT.error, `${opts.key} is not set (profile '${config.profile}').`);
  ctx.io.stdout.write(`${value}\n`);
}
