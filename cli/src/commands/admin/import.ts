import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { ImportDocument } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { info } from "../../runtime/output.js";

/** Options of `lp admin import`. */
export interface ImportOptions {
  file: string;
  json: boolean;
}

/** Turns the parsed flags of `lp admin import` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): ImportOptions {
  return { file: args[0], json: flags.json === true };
}

/** Runs `lp admin import`. */
export async function run(opts: ImportOptions, ctx: Context): Promise<void> {
  const text = opts.file === "-" ? await ctx.io.readStdin() : await readFile(resolve(ctx.io.cwd, opts.file), "utf8").catch(() => {
    throw new UsageError(`Cannot read ${opts.file}.`);
  });
  let doc: ImportDocument;
  try {
    doc = JSON.parse(text) as ImportDocument;
  } catch {
    throw new UsageError(`${opts.file} is not JSON.`);
  }
  const client = await ctx.client();
  const result = await client.admin.import(doc);
  if (opts.json) ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    info(ctx, `Imported ${result.records} rows and ${result.media} media files.`);
    // A format-2 document's records that name what it does not hold: said, so nobody thinks they came in.
    if (result.left.length > 0) {
      const shown = result.left.slice(0, 5).map((l) => `${l.key} (${l.reason})`).join("; ");
      info(ctx, `Left out ${result.left.length} records of the document: ${shown}${result.left.length > 5 ? "; ..." : ""}`);
    }
  }
}
