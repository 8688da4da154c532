import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { info } from "../../runtime/output.js";
import { openUrl } from "../../runtime/open-url.js";

/** Options of `lp dashboard`. */
export interface DashboardOptions {
  open: boolean;
}

/** Turns the parsed flags of `lp dashboard` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): DashboardOptions {
  return { open: flags.open === true };
}

/**
 * Asks the server for a fresh login URL (the admin key goes in a header, so it is in no URL or log) and
 * prints it on stdout. The URL works once; run the command again for another browser.
 */
export async function run(opts: DashboardOptions, ctx: Context): Promise<void> {
  const { values } = await ctx.config();
  const base = (values.api_url ?? "").replace(/\/+$/, "");
  if (!/^https?:\/\//.test(base)) throw new UsageError(`API URL '${base}' must start with http:// or https:// (--api-url, LP_API_URL).`);
  if (!values.admin_key) throw new CliError(EXIT.auth, "No admin key: run this where `lp serve` wrote its credentials, or pass --admin-key / LP_ADMIN_KEY.");
  const fetcher = ctx.deps.fetch ?? globalThis.fetch;
  let res: Response;
  try {
    res = await fetcher(`${base}/_dashboard/login-tokens`, { method: "POST", headers: { authorization: `Bearer ${values.admin_key}` } });
  } catch (error) {
    throw new CliError(EXIT.error, `Cannot reach ${base}: ${(error as Error).message}. Is lp serve running?`);
  }
  if (res.status === 401) throw new CliError(EXIT.auth, "The server refused the admin key.");
  if (res.status === 404) throw new CliError(EXIT.error, `${base} serves no dashboard (started with --no-admin?).`);
  if (!res.ok) throw new CliError(EXIT.error, `The server answered ${res.status} for a login URL.`);
  const body = (await res.json()) as { data: { url: string } };
  const url = `${base}${body.data.url}`;
  ctx.io.stdout.write(`${url}\n`);
  if (opts.open) (ctx.deps.openUrl ?? openUrl)(url, (command) => info(ctx, `Could not run ${command}; open the URL above yourself.`));
}
