import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { printItem } from "../../runtime/output.js";
import { productFields } from "./views.js";

/** Options of `lp products get`. */
export interface GetOptions {
  id: string;
  json: boolean;
}

/** Turns the parsed flags of `lp products get` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): GetOptions {
  return { id: args[0], json: flags.json === true };
}

/** Runs `lp products get`. */
export async function run(opts: GetOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printItem(ctx, await client.products.get(opts.id), productFields, opts.json);
}
