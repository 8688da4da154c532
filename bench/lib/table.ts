/** One line of the benchmark report. */
export interface Row {
  scenario: string;
  measured: string;
  target: string;
  /** true met, false missed, null informational. */
  met: boolean | null;
  /**
   * Event-loop delay of the server process the row measures, over its load (`describeLoop` in
   * loop-delay.ts); absent where the row measured no server under load.
   */
  loop?: string;
}

/** Formats a number with a fixed count of decimals and thousands separators. */
/** The middle value of `values` (the upper one of an even count); NaN for none. */
export const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export const fmt = (n: number, decimals = 0) =>
  Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals }) : "n/a";

/** Prints the rows as an aligned text table; the event-loop column appears when some row has a figure for it. */
export function printTable(rows: Row[]): string {
  const withLoop = rows.some((r) => r.loop !== undefined);
  const cells = rows.map((r) => [r.scenario, r.measured, ...(withLoop ? [r.loop ?? "-"] : []), r.target, r.met === null ? "-" : r.met ? "met" : "NOT MET"]);
  const head = ["scenario", "measured", ...(withLoop ? ["event loop (server)"] : []), "target", "result"];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(" | ")} |`;
  const sep = `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`;
  return [line(head), sep, ...cells.map(line)].join("\n");
}
