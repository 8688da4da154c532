import type { PageUpdateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { printItem } from "../../runtime/output.js";
import { toLooseValue, toPairs } from "../../runtime/parse.js";
import { pageFields } from "./views.js";

/** Options of `lp pages update`. */
export interface UpdatePageOptions {
  id: string;
  body: PageUpdateInput;
  json: boolean;
}

const toPatch = (values: string[] | undefined, flag: string) =>
  Object.fromEntries(Object.entries(toPairs(values, flag)).map(([k, v]) => [k, toLooseValue(v)]));

/** Turns the parsed flags of `lp pages update` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): UpdatePageOptions {
  const theme = toPatch(flags.theme, "--theme");
  const seo = toPatch(flags.seo, "--seo");
  if (!Object.keys(theme).length && !Object.keys(seo).length) throw new UsageError("Nothing to update: give --theme key=value or --seo key=value.");
  const body: Record<string, unknown> = {};
  if (Object.keys(theme).length) body.global_theme = theme;
  if (Object.keys(seo).length) body.seo_config = seo;
  return { id: args[0], body: body as PageUpdateInput, json: flags.json === true };
}

/** Runs `lp pages update`. */
export async function run(opts: UpdatePageOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  printItem(ctx, await client.pages.update(opts.id, opts.body), pageFields, opts.json);
}
