import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { toPairs } from "../../runtime/parse.js";

const METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD"];

/** Options of `lp api`. */
export interface ApiOptions {
  method: string;
  path: string;
  data?: string;
  headers: Record<string, string>;
}

/** Turns the parsed flags of `lp api` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): ApiOptions {
  const method = args[0].toUpperCase();
  if (!METHODS.includes(method)) throw new UsageError(`METHOD '${args[0]}' must be one of ${METHODS.join(", ")}.`);
  if (!args[1].startsWith("/")) throw new UsageError(`PATH '${args[1]}' must start with /.`);
  const headers = Object.fromEntries(Object.entries(toPairs(flags.header, "--header", ":")).map(([k, v]) => [k.toLowerCase(), v.trim()]));
  return { method, path: args[1], data: flags.data, headers };
}

async function readBody(data: string, ctx: Context): Promise<string> {
  if (data === "@-") return ctx.io.readStdin();
  if (data.startsWith("@")) return readFile(resolve(ctx.io.cwd, data.slice(1)), "utf8").catch(() => Promise.reject(new UsageError(`--data: cannot read ${data.slice(1)}.`)));
  return data;
}

/**
 * Prints the response body (pretty JSON when it is JSON) on stdout. An error answer's body is
 * printed too, as data, before the usual error line and exit code.
 */
export async function run(opts: ApiOptions, ctx: Context): Promise<void> {
  let path = opts.path;
  if (/\{account(_id)?\}/.test(path)) {
    const { values } = await ctx.config();
    if (!values.account) throw new UsageError("The path uses {account_id} but no account is configured (--account, LP_ACCOUNT).");
    path = path.replace(/\{account(_id)?\}/g, encodeURIComponent(values.account));
  }
  const [pathname, search] = path.split("?", 2);
  const query = search ? Object.fromEntries(new URLSearchParams(search)) : undefined;
  const headers = { ...opts.headers };
  let body: string | undefined;
  if (opts.data !== undefined) {
    body = await readBody(opts.data, ctx);
    headers["content-type"] ??= "application/json";
  }
  const client = await ctx.client();
  const print = (data: unknown) => {
    if (data === undefined || data === null || data === "") return;
    ctx.io.stdout.write(typeof data === "string" ? (data.endsWith("\n") ? data : `${data}\n`) : `${JSON.stringify(data, null, 2)}\n`);
  };
  try {
    const response = await client.requestRaw(opts.method, pathname, { body, headers, query });
    print(response.data);
  } catch (error) {
    if ((error as { name?: string }).name === "ApiError") print((error as { body: unknown }).body);
    throw error;
  }
}
