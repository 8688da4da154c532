import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { DatabaseDoctorReport } from "@lp/core";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { CliError, UsageError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { VERSION } from "../../runtime/version.js";

/** Options of `lp doctor`: the data dir of `lp serve` to check, and whether to repair it. */
export interface DoctorOptions {
  dataDir: string;
  fix: boolean;
  json: boolean;
}

/** Turns the parsed flags of `lp doctor` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput, ctx: Context): DoctorOptions {
  if (flags.dataDir === undefined) throw new UsageError("lp doctor needs the data dir to check: --data-dir DIR (lp serve's is .lp by default).");
  return { dataDir: resolve(ctx.io.cwd, flags.dataDir), fix: flags.fix === true, json: flags.json === true };
}

/** The names of the older formats, as a message gives them. */
const OLDER_FORMATS = { 1: "a file per record", 2: "JSON records in one table" } as const;

/** The report for people: one line per problem (check, what, where, what is wrong), then what --fix did. */
export function formatReport(report: DatabaseDoctorReport, fix: boolean): string {
  const lines = [`lp doctor: ${report.where}: ${report.format === null ? "no format marker" : `format ${report.format}`}, ${report.rows} row(s) read`];
  for (const p of report.problems) lines.push(`  ${p.check.padEnd(11)} ${p.key}  (${p.where}): ${p.message}`);
  for (const line of report.fixed) lines.push(`  fixed  ${line}`);
  const fixable = report.problems.filter((p) => p.fixable).length;
  if (report.problems.length === 0) lines.push("sound: no problems found");
  else if (fix) lines.push(`${report.problems.length} problem(s), ${report.fixed.length} fix(es) made`);
  else if (fixable === 0) lines.push(`${report.problems.length} problem(s), none that --fix repairs: see each line for what to do`);
  else {
    const which = fixable === report.problems.length ? "them" : `${fixable} of them`;
    lines.push(`${report.problems.length} problem(s); run again with --fix to repair ${which} (it copies every readable row into a fresh database, keeping the old file; writes a missing format marker; quarantines orphan media; tightens modes; nothing is deleted)`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Checks the data dir (format 3, `lp.db`) and prints the report on stdout. A dir of format 1 or 2 is what
 * `lp serve` migrates at its next start: without `--fix` it is named and not checked (exit 1); with `--fix`
 * it is migrated now, as `lp serve` would, and the result checked. Exits 1 when there is any problem (with
 * `--fix`: any it could not fix), 0 when the dir is sound. Refuses `--fix` on a dir a running lp serve holds.
 */
export async function run(opts: DoctorOptions, ctx: Context): Promise<void> {
  const core = await import("@lp/core");
  const writtenBy = `lp ${VERSION}`;
  const holder = core.dataDirHolder(opts.dataDir);
  if (holder !== null && opts.fix) throw new CliError(EXIT.error, `lp serve${holder.pid === null ? "" : ` (pid ${holder.pid})`} is using ${opts.dataDir}; stop it before lp doctor --fix.`);
  if (!existsSync(opts.dataDir)) throw new CliError(EXIT.error, `lp doctor: ${opts.dataDir} does not exist.`);
  const unlock = opts.fix ? core.lockDataDir(opts.dataDir) : () => {};
  let report: DatabaseDoctorReport;
  try {
    const older = core.olderFormatOf(opts.dataDir);
    if (older !== null) {
      const what = `${opts.dataDir} is in format ${older} (${OLDER_FORMATS[older]})`;
      if (!opts.fix) throw new CliError(EXIT.error, `lp doctor: ${what}; lp serve migrates it to format ${core.DATA_DIR_FORMAT} at its next start, or run lp doctor --fix to migrate it now.`);
      // The migration of lp serve's start, all or nothing, the old files kept aside; then the result is checked.
      const database = await core.openDataDir(opts.dataDir, { log: (line) => ctx.io.stderr.write(`${line}\n`), writtenBy });
      await database.close();
    }
    report = await core.runDatabaseDoctor(opts.dataDir, { fix: opts.fix, writtenBy });
  } finally {
    unlock();
  }
  ctx.io.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report, opts.fix));
  const left = opts.fix ? core.unfixedProblems(report) : report.problems;
  if (left.length > 0) throw new CliError(EXIT.error, `lp doctor: ${left.length} problem(s) ${opts.fix ? "left that --fix cannot repair" : "found"} in ${report.where}`);
}
