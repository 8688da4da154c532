import type { Colors } from "../../runtime/color.js";
import { formatTable, formatTsv, type Column } from "../../runtime/table.js";
import type { CheckResult, ConformanceReport } from "./types.js";

const detail = (c: CheckResult) => (c.problems.length ? c.problems.join("; ") : (c.note ?? ""));

const COLUMNS: Column<CheckResult>[] = [
  ["check", (c) => c.id],
  ["expected", (c) => c.expected],
  ["got", (c) => c.got],
  ["result", (c) => c.verdict],
];

/** The report for a terminal: one row per check, then each failure's departures and each skip's reason. */
export function toTable(report: ConformanceReport, colors: Colors): string {
  const paint = { pass: colors.green, fail: colors.red, skip: colors.yellow };
  // Colour goes on after alignment, so escape codes never shift the columns.
  const table = formatTable(report.checks, COLUMNS, colors)
    .split("\n")
    .map((line, index) => {
      const c = report.checks[index - 1];
      return c && line.endsWith(`  ${c.verdict}`) ? `${line.slice(0, -c.verdict.length)}${paint[c.verdict](c.verdict)}` : line;
    })
    .join("\n");
  const notes = report.checks
    .filter((c) => c.verdict !== "pass")
    .flatMap((c) => (c.verdict === "fail" ? c.problems.map((p) => `  ${paint.fail(c.id)}: ${p}\n`) : [`  ${paint.skip(c.id)}: skipped: ${c.note ?? ""}\n`]))
    .join("");
  return notes ? `${table}\n${notes}` : table;
}

/** The report without a terminal: one tab-separated line per check (check, expected, got, result, detail). */
export function toLines(report: ConformanceReport): string {
  return formatTsv(report.checks, [...COLUMNS, ["detail", detail]]);
}

/** The lines for stderr: counts, each failure as `check: problem`, where the run stopped, the clean-up. */
export function toSummary(report: ConformanceReport): string {
  const { pass, fail, skip } = report.counts;
  const lines = [`Conformance of ${report.target.api_url} (account ${report.target.account}): ${pass} passed, ${fail} failed, ${skip} skipped.`];
  for (const failure of report.failed) lines.push(`  ${failure}`);
  if (report.aborted) lines.push(`Stopped at ${report.aborted.step}: ${report.aborted.reason}.`);
  const { cleanup, created } = report;
  if (cleanup.kept) {
    const kept = created.filter((r) => !r.deleted);
    lines.push(kept.length ? `Kept (--keep): ${kept.map((r) => `${r.kind} ${r.id}`).join(", ")}.` : "Kept (--keep): nothing was left to keep.");
  } else {
    lines.push(`Cleaned up: ${created.length} record(s) made, ${cleanup.left.length ? `${cleanup.left.length} left behind:` : "all deleted."}`);
    for (const left of cleanup.left) lines.push(`  left behind: ${left.kind} ${left.id} (${left.reason})`);
  }
  return `${lines.join("\n")}\n`;
}
