import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { assertConfigKey, configPath, readConfigFile, writeConfigFile, type ConfigKey } from "../../runtime/config-file.js";
import { info } from "../../runtime/output.js";

/** Options of `lp config set`. */
export interface SetOptions {
  key: ConfigKey;
  value: string;
}

/** Turns the parsed flags of `lp config set` into its options; usage errors only, no I/O. */
export function toOptions({ args }: CommandInput): SetOptions {
  const key = args[0];
  assertConfigKey(key);
  return { key, value: args[1] };
}

/** Runs `lp config set`. */
export async function run(opts: SetOptions, ctx: Context): Promise<void> {
  const path = configPath(ctx.io.env);
  const profile = ctx.flags.profile ?? ctx.io.env.LP_PROFILE ?? "default";
  const file = await readConfigFile(path);
  const values = { ...file.profiles[profile] };
  if (opts.value === "") delete values[opts.key];
  else values[opts.key] = opts.value;
  file.profiles[profile] = values;
  await writeConfigFile(path, file);
  info(ctx, `${opts.value === "" ? "Removed" : "Set"} ${opts.key} in profile '${profile}' (${path}).`);
}
