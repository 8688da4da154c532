import type { Colors } from "./color.js";

/** A column or field: a header and how to read the value. */
export type Column<T> = [header: string, get: (item: T) => unknown];

/** A cell as text: null/undefined as `empty`, arrays joined, objects as JSON. */
export function toCell(value: unknown, empty: string): string {
  if (value === null || value === undefined || value === "") return empty;
  if (Array.isArray(value)) return value.length ? value.map((v) => toCell(v, empty)).join(", ") : empty;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value).replace(/[\t\n\r]+/g, " ");
}

/** Aligned columns with a header, for a terminal. */
export function formatTable<T>(items: T[], columns: Column<T>[], colors: Colors): string {
  const rows = items.map((item) => columns.map(([, get]) => toCell(get(item), "-")));
  const widths = columns.map(([header], i) => Math.max(header.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  const header = colors.bold(line(columns.map(([h]) => h.toUpperCase())));
  return [header, ...rows.map(line)].join("\n") + "\n";
}

/** Tab-separated rows without a header: stable input for `cut` and `awk`. */
export function formatTsv<T>(items: T[], columns: Column<T>[]): string {
  return items.map((item) => columns.map(([, get]) => toCell(get(item), "")).join("\t") + "\n").join("");
}

/** `field  value` lines for one resource. */
export function formatFields<T>(item: T, fields: Column<T>[], colors: Colors, tty: boolean): string {
  if (!tty) return fields.map(([name, get]) => `${name}\t${toCell(get(item), "")}\n`).join("");
  const width = Math.max(...fields.map(([name]) => name.length));
  return fields.map(([name, get]) => `${colors.dim(name.padEnd(width))}  ${toCell(get(item), "-")}\n`).join("");
}
