import type { JournalEntry, JournalQuery } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { parseDuration } from "../../runtime/durations.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { toInt } from "../../runtime/parse.js";

/** Options of `lp requests`. */
export interface RequestsOptions {
  /** The journal's filter (without `after` and `limit`, which the command sets). */
  filter: Omit<JournalQuery, "after" | "limit">;
  limit: number;
  follow: boolean;
  /** Exit 0 once this many matching requests were answered. */
  expect?: number;
  timeoutMs: number;
  json: boolean;
  /** Between two reads of the journal; `LP_POLL_INTERVAL_MS` overrides it. */
  intervalMs: number;
}

/** Turns the parsed flags of `lp requests` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput, ctx: Pick<Context, "io">): RequestsOptions {
  const method = flags.method as string | undefined;
  if (method !== undefined && !/^[A-Za-z]{1,10}$/.test(method)) throw new UsageError(`--method: '${method}' is not an HTTP method.`);
  const status = (flags.status as string | undefined)?.toLowerCase();
  if (status !== undefined && !/^[1-5]([0-9][0-9]|xx)$/.test(status)) throw new UsageError(`--status: '${status}' must be a status (201) or a class (4xx).`);
  const since = flags.since as string | undefined;
  if (since !== undefined && !/^\d{1,12}(ms|s|m|h|d)$/.test(since) && (!/^\d{4}-\d{2}-\d{2}T/.test(since) || Number.isNaN(Date.parse(since)))) {
    throw new UsageError(`--since: '${since}' must be an ISO 8601 time or a duration such as 10m.`);
  }
  const path = flags.path as string | undefined;
  if (path !== undefined && path.length > 512) throw new UsageError("--path: at most 512 characters.");
  const override = ctx.io.env.LP_POLL_INTERVAL_MS;
  return {
    filter: { method: method?.toUpperCase(), path, status, since: since && /^\d{4}/.test(since) ? new Date(since).toISOString() : since },
    limit: toInt(flags.limit, "--limit", 1, 500) ?? 20,
    follow: flags.follow === true,
    expect: toInt(flags.expect, "--expect", 1, 500),
    timeoutMs: parseDuration(flags.timeout ?? "30s", "--timeout"),
    json: flags.json === true,
    intervalMs: override !== undefined && override !== "" ? parseDuration(override, "LP_POLL_INTERVAL_MS") : 250,
  };
}

/** One line per request: start time, method, path and query, status, duration, request id. */
export function formatEntry(e: JournalEntry): string {
  const query = new URLSearchParams(e.query).toString();
  return `${e.started_at}  ${e.method} ${e.path}${query ? `?${query}` : ""} ${e.status} ${e.duration_ms}ms ${e.id}`;
}

/**
 * Runs `lp requests`: one read of the journal (newest first), or with `--follow` / `--expect` reads every
 * `intervalMs` of what was answered since, printing each in order of arrival.
 */
export async function run(opts: RequestsOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const print = (e: JournalEntry) => ctx.io.stdout.write(opts.json ? `${JSON.stringify(e)}\n` : `${formatEntry(e)}\n`);
  if (!opts.follow && opts.expect === undefined) {
    const entries = await client.admin.requests({ ...opts.filter, limit: opts.limit });
    if (opts.json) ctx.io.stdout.write(`${JSON.stringify(entries)}\n`);
    else if (entries.length === 0) ctx.io.stderr.write("No matching requests.\n");
    else entries.forEach(print);
    return;
  }
  // --expect counts what was answered already; --follow alone starts from now.
  let seen = 0;
  let after = opts.expect === undefined ? ((await client.admin.requests({ limit: 1 }))[0]?.seq ?? 0) : 0;
  const deadline = opts.expect === undefined ? Number.POSITIVE_INFINITY : performance.now() + opts.timeoutMs;
  const stopped = ctx.io.onShutdown().then(() => true);
  for (;;) {
    const fresh = (await client.admin.requests({ ...opts.filter, after, limit: 500 })).reverse();
    for (const e of fresh) {
      print(e);
      after = Math.max(after, e.seq);
    }
    seen += fresh.length;
    if (opts.expect !== undefined && seen >= opts.expect) {
      if (!opts.json) ctx.io.stderr.write(`${seen} matching request${seen === 1 ? "" : "s"} answered (expected ${opts.expect}).\n`);
      return;
    }
    const left = deadline - performance.now();
    if (left <= 0) throw new CliError(EXIT.error, `${seen} of ${opts.expect} matching requests answered within ${opts.timeoutMs} ms.`, { code: "expectation_unmet" });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pause = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.min(opts.intervalMs, left))));
    const stop = await Promise.race([stopped, pause]);
    clearTimeout(timer);
    if (stop) return;
  }
}
