import type { CheckCase, CheckExpectation, CheckReport } from "@lp/webhooks";
import type { Colors } from "../../runtime/color.js";
import { formatDuration } from "../../runtime/durations.js";
import { formatTable, formatTsv, type Column } from "../../runtime/table.js";

const EXPECTED: Record<CheckExpectation, string> = { accept: "2xx", refuse: "4xx", challenge: "200 + echo", info: "2xx (info)" };

const COLUMNS: Column<CheckCase>[] = [
  ["case", (c) => c.id],
  ["expected", (c) => EXPECTED[c.expected]],
  ["got", (c) => c.got],
  ["verdict", (c) => c.verdict],
  // The slowest answer of the case: lp's verification gives up at 10 s, a delivery at 15 s.
  ["time", (c) => formatDuration(Math.max(...c.exchanges.map((e) => e.latencyMs)))],
];

/** The report for a terminal: one row per case (with its slowest answer's time), then what each failed or informative case means. */
export function toTable(report: CheckReport, colors: Colors): string {
  const paint = { pass: colors.green, fail: colors.red, info: colors.yellow };
  // Colour is added after alignment, so escape codes never shift the columns.
  const table = formatTable(report.cases, COLUMNS, colors)
    .split("\n")
    .map((line, index) => {
      const c = report.cases[index - 1];
      return c ? line.replace(new RegExp(`  ${c.verdict}( +\\S+)$`), (_, time: string) => `  ${paint[c.verdict](c.verdict)}${time}`) : line;
    })
    .join("\n");
  const notes = report.cases
    .filter((c) => c.verdict !== "pass" || c.slow)
    .map((c) => `  ${paint[c.verdict](c.id)}: ${c.note}\n`)
    .join("");
  return notes ? `${table}\n${notes}` : table;
}

/** The report without a terminal: one tab-separated line per case (case, expected, got, verdict, time, note). */
export function toLines(report: CheckReport): string {
  return formatTsv(report.cases, [...COLUMNS, ["note", (c) => c.note]]);
}

/** One status line: how many cases passed, failed (named) and were informative. */
export function toSummary(report: CheckReport): string {
  const { pass, fail, info } = report.counts;
  const failed = fail ? ` (${report.failed.join(", ")})` : "";
  const line = `Checked ${report.url} with ${report.eventType}: ${pass} passed, ${fail} failed${failed}, ${info} info.`;
  // Eleven identical "crashed" rows say less than one sentence about the likely cause.
  const unanswered = report.cases.every((c) => c.exchanges.every((e) => e.status === null));
  return unanswered ? `${line}\nNo request got an answer: is the receiver running and listening at ${report.url}?` : line;
}
