import type { ProductUpdateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { printItem } from "../../runtime/output.js";
import { compact, toAmount, toChoice, toInt, toPairs } from "../../runtime/parse.js";
import { toImages } from "./images.js";
import { productFields } from "./views.js";

/** Options of `lp products update`. */
export interface UpdateOptions {
  id: string;
  /** Everything but images, ready to send. `description: null` clears it. */
  body: Omit<ProductUpdateInput, "images">;
  images: string[];
  json: boolean;
}

/** Turns the parsed flags of `lp products update` into its options; usage errors only, no I/O. */
export function toOptions({ args, flags }: CommandInput): UpdateOptions {
  const reorder = Object.entries(toPairs(flags.reorder, "--reorder")).map(([id, order]) => ({ id, display_order: toInt(order, "--reorder", 0)! }));
  const body = compact({
    title: flags.title,
    price: toAmount(flags.price, "--price"),
    product_type: toChoice(flags.type, "--type", ["physical", "service"] as const),
    description: flags.description === undefined ? undefined : flags.description === "" ? null : flags.description,
    original_price: toAmount(flags.originalPrice, "--original-price"),
    delivery_price: toAmount(flags.deliveryPrice, "--delivery-price"),
    remove_image_ids: flags.removeImage,
    reorder_images: reorder.length ? reorder : undefined,
  });
  const images: string[] = flags.image ?? [];
  if (Object.keys(body).length === 0 && images.length === 0) throw new UsageError("Nothing to update: give at least one flag, e.g. --title or --price.");
  return { id: args[0], body, images, json: flags.json === true };
}

/** Runs `lp products update`. */
export async function run(opts: UpdateOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const body: ProductUpdateInput = { ...opts.body, ...compact({ images: await toImages(opts.images, ctx.io.cwd) }) };
  printItem(ctx, await client.products.update(opts.id, body), productFields, opts.json);
}
