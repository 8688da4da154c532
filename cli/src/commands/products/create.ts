import type { ProductCreateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { printItem } from "../../runtime/output.js";
import { compact, toAmount, toChoice } from "../../runtime/parse.js";
import { valueOrPrompt } from "../../runtime/prompt.js";
import { toImages } from "./images.js";
import { productFields } from "./views.js";

const TYPES = ["physical", "service"] as const;

/** Options of `lp products create`. */
export interface CreateOptions {
  title?: string;
  price?: number;
  type?: (typeof TYPES)[number];
  description?: string;
  originalPrice?: number;
  deliveryPrice?: number;
  images: string[];
  idempotencyKey?: string;
  json: boolean;
}

/** Turns the parsed flags of `lp products create` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput, ctx: Pick<Context, "canPrompt">): CreateOptions {
  const opts: CreateOptions = {
    title: flags.title,
    price: toAmount(flags.price, "--price"),
    type: toChoice(flags.type, "--type", TYPES),
    description: flags.description,
    originalPrice: toAmount(flags.originalPrice, "--original-price"),
    deliveryPrice: toAmount(flags.deliveryPrice, "--delivery-price"),
    images: flags.image ?? [],
    idempotencyKey: flags.idempotencyKey,
    json: flags.json === true,
  };
  if (!ctx.canPrompt) {
    const missing = [["--title", opts.title], ["--price", opts.price], ["--type", opts.type]].filter(([, v]) => v === undefined).map(([f]) => f);
    if (missing.length) throw new UsageError(`Missing ${missing.join(", ")}.`);
  }
  return opts;
}

/** Runs `lp products create`. */
export async function run(opts: CreateOptions, ctx: Context): Promise<void> {
  const title = await valueOrPrompt(opts.title, "--title", ctx, "Title");
  const price = opts.price ?? toAmount(await valueOrPrompt(undefined, "--price", ctx, "Price"), "price")!;
  const type = opts.type ?? (await ctx.prompt.select("Product type", TYPES));
  const body = compact({
    title,
    price,
    product_type: type,
    description: opts.description,
    original_price: opts.originalPrice,
    delivery_price: opts.deliveryPrice,
    images: await toImages(opts.images, ctx.io.cwd),
  }) as ProductCreateInput;
  const client = await ctx.client();
  const product = await client.products.create(body, { idempotencyKey: opts.idempotencyKey });
  printItem(ctx, product, productFields, opts.json);
}
