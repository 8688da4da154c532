import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { info } from "../../runtime/output.js";

/** Options of `lp products delete`. */
export interface DeleteOptions {
  id: string;
  json: boolean;
}

/** Turns the parsed flags of `lp products delete` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): DeleteOptions {
  return { id: args[0], json: flags.json === true };
}

/** Runs `lp products delete`. */
export async function run(opts: DeleteOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  await client.products.delete(opts.id);
  if (opts.json) ctx.io.stdout.write(`${JSON.stringify({ id: opts.id, deleted: true })}\n`);
  else info(ctx, `Deleted product ${opts.id}.`);
}
