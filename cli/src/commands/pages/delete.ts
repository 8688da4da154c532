import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { info } from "../../runtime/output.js";

/** Options of `lp pages delete`. */
export interface DeletePageOptions {
  id: string;
  json: boolean;
}

/** Turns the parsed flags of `lp pages delete` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): DeletePageOptions {
  return { id: args[0], json: flags.json === true };
}

/** Runs `lp pages delete`. */
export async function run(opts: DeletePageOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  await client.pages.delete(opts.id);
  if (opts.json) ctx.io.stdout.write(`${JSON.stringify({ id: opts.id, deleted: true })}\n`);
  else info(ctx, `Deleted page ${opts.id}.`);
}
