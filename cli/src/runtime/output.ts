import type { Context } from "./context.js";
import { formatFields, formatTable, formatTsv, type Column } from "./table.js";

/**
 * The one implementation of output: `--json` prints the value as JSON; otherwise a table or fields
 * on a terminal, tab-separated text when piped. Always stdout: it is the data.
 */
export function printList<T>(ctx: Context, items: T[], columns: Column<T>[], json: boolean): void {
  const { io } = ctx;
  if (json) io.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
  else if (io.stdoutIsTTY) io.stdout.write(items.length ? formatTable(items, columns, ctx.colors.out) : "");
  else io.stdout.write(formatTsv(items, columns));
  if (!json && io.stdoutIsTTY && items.length === 0) io.stderr.write("No results.\n");
}

/** Prints one resource; see {@link printList}. */
export function printItem<T>(ctx: Context, item: T, fields: Column<T>[], json: boolean): void {
  if (json) ctx.io.stdout.write(`${JSON.stringify(item, null, 2)}\n`);
  else ctx.io.stdout.write(formatFields(item, fields, ctx.colors.out, ctx.io.stdoutIsTTY));
}

/** A status line on stderr (never data). */
export function info(ctx: Context, line: string): void {
  ctx.io.stderr.write(`${line}\n`);
}

export type { Column };
