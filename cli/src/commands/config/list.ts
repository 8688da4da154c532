import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { CONFIG_KEYS, SECRET_KEYS } from "../../runtime/config-file.js";
import { ENV_OF } from "../../runtime/config.js";
import { info, printList } from "../../runtime/output.js";

/** Options of `lp config list`. */
export interface ListConfigOptions {
  showSecrets: boolean;
  json: boolean;
}

/** Turns the parsed flags of `lp config list` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ListConfigOptions {
  return { showSecrets: flags.showSecrets === true, json: flags.json === true };
}

const mask = (value: string) => (value.length <= 8 ? "****" : `${value.slice(0, 6)}…${value.slice(-2)}`);

/** Runs `lp config list`. */
export async function run(opts: ListConfigOptions, ctx: Context): Promise<void> {
  const config = await ctx.config({ allowMissingProfile: true });
  const rows = CONFIG_KEYS.map((key) => {
    const value = config.values[key];
    const shown = value === undefined ? null : SECRET_KEYS.has(key) && !opts.showSecrets ? mask(value) : value;
    return { key, value: shown, source: config.sources[key], env: ENV_OF[key] };
  });
  printList(ctx, rows, [["key", (r) => r.key], ["value", (r) => r.value], ["source", (r) => r.source], ["env", (r) => r.env]], opts.json);
  if (!opts.json) {
    info(ctx, `Profile '${config.profile}' in ${config.configPath}${config.credentialsPath ? `; dev credentials from ${config.credentialsPath}` : ""}.`);
  }
}
