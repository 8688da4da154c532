import type { PageCreateInput } from "@lp/client";
import type { Context } from "../../runtime/context.js";
import type { CommandInput } from "../../runtime/define.js";
import { UsageError } from "../../runtime/errors.js";
import { info, printItem } from "../../runtime/output.js";
import { compact, toAmount, toChoice } from "../../runtime/parse.js";
import { valueOrPrompt } from "../../runtime/prompt.js";
import { settleJob, toWaitOptions, type WaitOptions } from "../../runtime/wait.js";
import { toCheckoutField } from "./checkout-fields.js";
import { jobFields, pageFields } from "./views.js";

/** Options of `lp pages create`. */
export interface CreatePageOptions {
  /** The request body, except `product_id` when it is still to be asked. */
  body: Partial<PageCreateInput>;
  simulate?: string;
  idempotencyKey?: string;
  wait: WaitOptions;
  json: boolean;
}

const INLINE = ["title", "description", "price", "type"] as const;

/** Turns the parsed flags of `lp pages create` into its options; usage errors only, no I/O. */
export function toOptions({ flags }: CommandInput, ctx: Pick<Context, "canPrompt" | "io">): CreatePageOptions {
  const inlineGiven = INLINE.filter((f) => flags[f] !== undefined);
  if (flags.productId && inlineGiven.length) throw new UsageError("Give either --product-id or the inline product flags (--title ...), not both.");
  let product: PageCreateInput["product"];
  if (inlineGiven.length) {
    const missing = INLINE.filter((f) => flags[f] === undefined).map((f) => `--${f}`);
    if (missing.length) throw new UsageError(`An inline product needs ${missing.join(", ")} too.`);
    product = compact({
      title: flags.title,
      description: flags.description,
      price: toAmount(flags.price, "--price")!,
      product_type: toChoice(flags.type, "--type", ["physical", "service"] as const)!,
      delivery_price: toAmount(flags.deliveryPrice, "--delivery-price"),
      images: flags.image,
    }) as PageCreateInput["product"];
  } else if (!flags.productId && !ctx.canPrompt) {
    throw new UsageError("Missing --product-id (or an inline product: --title, --description, --price, --type).");
  }
  const design = compact({
    primary_color: flags.primaryColor,
    secondary_color: flags.secondaryColor,
    background_color: flags.backgroundColor,
    text_color: flags.textColor,
    font_family: flags.fontFamily,
  });
  const options = compact({ language: flags.language, marketing_angle: flags.angle });
  const fields = (flags.checkoutField as string[] | undefined)?.map(toCheckoutField);
  return {
    body: compact({
      product,
      product_id: flags.productId,
      options: Object.keys(options).length ? options : undefined,
      design: Object.keys(design).length ? design : undefined,
      checkout_fields: fields,
    }),
    simulate: flags.simulate,
    idempotencyKey: flags.idempotencyKey,
    wait: toWaitOptions(flags, ctx.io.env),
    json: flags.json === true,
  };
}

/** Runs `lp pages create`. */
export async function run(opts: CreatePageOptions, ctx: Context): Promise<void> {
  const body = { ...opts.body } as PageCreateInput;
  if (!body.product && !body.product_id) body.product_id = await valueOrPrompt(undefined, "--product-id", ctx, "Product id");
  const client = await ctx.client();
  const headers: Record<string, string> = opts.simulate ? { "lp-simulate": opts.simulate } : {};
  const accepted = await client.pages.create(body, { idempotencyKey: opts.idempotencyKey, headers });
  if (!opts.wait.wait) {
    printItem(ctx, accepted, [["job_id", (a) => a.job_id], ["poll_url", (a) => a.poll_url]], opts.json);
    if (ctx.io.stderrIsTTY) info(ctx, `Generating. Follow it with: lp jobs get ${accepted.job_id} --wait`);
    return;
  }
  let done = false;
  const job = await settleJob(ctx, accepted.job_id, opts.wait, (j) => {
    // The job is printed only when it did not complete; a completed one is followed by its page.
    if (j.status !== "completed") printItem(ctx, j, jobFields, opts.json);
    else done = true;
  });
  for (const warning of job.warnings) info(ctx, `Warning: ${warning.code}: ${warning.message}`);
  if (done && job.page_id) printItem(ctx, await client.pages.get(job.page_id), pageFields, opts.json);
}
