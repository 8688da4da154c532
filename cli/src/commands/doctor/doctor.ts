import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { DoctorReport } from "@lp/core";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { VERSION } from "../../runtime/version.js";

/** Options of `lp doctor`: one store, a data dir (the embedded store) or a Redis prefix. */
export type DoctorOptions = { fix: boolean; json: boolean } & ({ kind: "dir"; dataDir: string } | { kind: "redis"; redisUrl?: string; redisPrefix: string });

/** Turns the parsed flags of `lp doctor` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput, ctx: Context): DoctorOptions {
  const common = { fix: flags.fix === true, json: flags.json === true };
  if (flags.dataDir !== undefined && flags.redisUrl !== undefined) throw new UsageError("lp doctor checks one store: --data-dir DIR, or --redis-url URL with --redis-prefix P.");
  if (flags.dataDir !== undefined) return { ...common, kind: "dir", dataDir: resolve(ctx.io.cwd, flags.dataDir) };
  const url = flags.redisUrl ?? ctx.io.env.LP_REDIS_URL;
  if (url === undefined) throw new UsageError("lp doctor needs a store: --data-dir DIR, or --redis-url URL (or LP_REDIS_URL) with --redis-prefix P.");
  if (!/^rediss?:\/\/\S+$/.test(url) || !URL.canParse(url)) throw new UsageError(`--redis-url: '${url}' must be a URL like redis://127.0.0.1:6379/0.`);
  if (!/^[A-Za-z0-9_.:-]{0,64}$/.test(flags.redisPrefix)) throw new UsageError(`--redis-prefix: '${flags.redisPrefix}' may hold letters, digits and _ . : - (at most 64).`);
  return { ...common, kind: "redis", redisUrl: url, redisPrefix: flags.redisPrefix };
}

/** The report for people: one line per problem (check, key, where, what), then what --fix did. */
export function formatReport(report: DoctorReport, fix: boolean): string {
  const lines = [`lp doctor: ${report.where}: ${report.format === null ? "no format marker" : `format ${report.format}`}, ${report.records} record(s) checked`];
  for (const p of report.problems) lines.push(`  ${p.check.padEnd(6)} ${p.key}  (${p.where}): ${p.message}`);
  for (const line of report.fixed) lines.push(`  fixed  ${line}`);
  const fixable = report.problems.filter((p) => p.fixable).length;
  if (report.problems.length === 0) lines.push("sound: no problems found");
  else if (fix) lines.push(`${report.problems.length} problem(s), ${report.fixed.length} fix(es) made`);
  else if (fixable === 0) lines.push(`${report.problems.length} problem(s), none that --fix repairs: see each line for what to do`);
  else lines.push(`${report.problems.length} problem(s); run again with --fix to repair ${fixable === report.problems.length ? "them" : `${fixable} of them`} (it sets aside what is unreadable, rebuilds what is kept beside the records, writes a missing format marker and tightens modes; nothing is deleted)`);
  return `${lines.join("\n")}\n`;
}

/**
 * Checks the store and prints the report on stdout. Exits 1 when there is any problem (with `--fix`: any
 * it could not fix), 0 when the store is sound. Refuses a data dir a running lp serve holds.
 */
export async function run(opts: DoctorOptions, ctx: Context): Promise<void> {
  const core = await import("@lp/core");
  const writtenBy = `lp ${VERSION}`;
  let report: DoctorReport;
  if (opts.kind === "dir") {
    const holder = core.dataDirHolder(opts.dataDir);
    if (holder !== null && opts.fix) throw new CliError(EXIT.error, `lp serve (pid ${holder}) is using ${opts.dataDir}; stop it before lp doctor --fix.`);
    if (!existsSync(opts.dataDir)) throw new CliError(EXIT.error, `lp doctor: ${opts.dataDir} does not exist.`);
    const unlock = opts.fix ? core.lockDataDir(opts.dataDir) : () => {};
    try {
      // A format-1 dir (a file per record) is what lp serve migrates at its next start; --fix migrates it now.
      if (!existsSync(join(opts.dataDir, core.DATABASE_FILE)) && existsSync(join(opts.dataDir, "data"))) {
        if (!opts.fix) throw new CliError(EXIT.error, `lp doctor: ${opts.dataDir} is in format 1 (a file per record); lp serve migrates it to format ${core.CURRENT_FORMAT} at its next start, or run lp doctor --fix to migrate it now.`);
        core.migrateLegacyDataDir(opts.dataDir, { log: (line) => ctx.io.stderr.write(`${line}\n`), writtenBy });
      }
      const source = core.sqliteDoctorSource(opts.dataDir, { fix: opts.fix });
      try {
        report = await core.runDoctor(source, { fix: opts.fix, writtenBy });
      } finally {
        source.close();
      }
    } finally {
      unlock();
    }
  } else {
    const source = core.redisDoctorSource(opts.redisUrl!, opts.redisPrefix);
    try {
      report = await core.runDoctor(source, { fix: opts.fix, writtenBy });
    } catch (error) {
      throw new CliError(EXIT.error, `lp doctor: cannot read ${source.where}: ${(error as Error).message}`);
    } finally {
      await source.close();
    }
  }
  ctx.io.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, opts.fix));
  const left = opts.fix ? core.unfixed(report) : report.problems;
  if (left.length > 0) throw new CliError(EXIT.error, `lp doctor: ${left.length} problem(s) ${opts.fix ? "left that --fix cannot repair" : "found"} in ${report.where}`);
}
