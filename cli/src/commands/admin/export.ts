import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { info } from "../../runtime/output.js";

/** Options of `lp admin export`. */
export interface ExportOptions {
  output?: string;
}

/** Turns the parsed flags of `lp admin export` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput): ExportOptions {
  return { output: flags.output };
}

/** The export is data: stdout, or the `--output` file (0600: it holds token hashes and secrets' hashes). */
export async function run(opts: ExportOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const doc = await client.admin.export();
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  if (!opts.output || opts.output === "-") {
    ctx.io.stdout.write(text);
    return;
  }
  const path = resolve(ctx.io.cwd, opts.output);
  await writeFile(path, text, { mode: 0o600 });
  const rows = Object.values(doc.tables).reduce((sum, list) => sum + (list?.length ?? 0), 0);
  info(ctx, `Wrote ${rows} rows and ${Object.keys(doc.media).length} media files to ${path}.`);
}
