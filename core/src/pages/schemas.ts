import { z } from "zod";
import { checkoutFieldsSchema } from "../generation/checkout-fields.js";
import { isoDateOrDateTime, listQuerySchema } from "../lists/list-query.js";
import { colorSchema, fontStackSchema, globalThemePatchSchema, httpUrlSchema, seoConfigPatchSchema } from "../render/theme.js";

const money = z.number().finite("must be a finite number").min(0, "must not be negative").max(1_000_000_000, "is too large");
const color = colorSchema;

/** The inline product of a page creation (spec: title, description, price, product_type required). */
export const inlineProductSchema = z.strictObject({
  title: z.string().trim().min(1, "must not be empty").max(200).meta({ pattern: "\\S" }),
  description: z.string().max(5000),
  price: money,
  product_type: z.enum(["physical", "service"]),
  delivery_price: money.nullable().optional(),
  images: z.array(httpUrlSchema).max(20).optional(),
});

/** Body of `POST /pages`: exactly one of `product` and `product_id`. */
export const pageCreateSchema = z
  .strictObject({
    product: inlineProductSchema.optional(),
    product_id: z.string().optional().describe("An existing, non-deleted product of the account"),
    options: z
      .strictObject({
        language: z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, "must be a language tag such as en or fr-CA").default("en"),
        marketing_angle: z.string().trim().max(500).optional(),
      })
      .optional(),
    design: z
      .strictObject({
        primary_color: color.optional(),
        secondary_color: color.optional(),
        background_color: color.optional(),
        text_color: color.optional(),
        font_family: fontStackSchema.optional(),
      })
      .optional(),
    checkout_fields: checkoutFieldsSchema.optional(),
  })
  .superRefine((body, ctx) => {
    const both = body.product !== undefined && body.product_id !== undefined;
    const neither = body.product === undefined && body.product_id === undefined;
    if (both || neither) {
      ctx.addIssue({
        code: "custom",
        path: both ? ["product_id"] : [],
        message: both ? "give either product or product_id, not both" : "give exactly one of product or product_id",
      });
    }
  })
  // The check above gives the clear message; the `oneOf` states the same rule in the document.
  .meta({ oneOf: [{ required: ["product"] }, { required: ["product_id"] }] });

export type PageCreateInput = z.output<typeof pageCreateSchema>;

/** Body of `PATCH /pages/{id}`: JSON Merge Patch of each object. */
export const pageUpdateSchema = z.strictObject({
  global_theme: globalThemePatchSchema.optional(),
  seo_config: seoConfigPatchSchema.optional(),
});

export type PageUpdateInput = z.output<typeof pageUpdateSchema>;

/** Query of `GET /pages`. */
export const pageListSchema = listQuerySchema(["created_at", "updated_at", "slug"]).extend({
  status: z.enum(["draft", "published"]).optional(),
  product_id: z.string().max(64).optional(),
  q: z.string().max(200).optional().describe("Case-insensitive substring of the slug or the product title"),
  created_after: isoDateOrDateTime.optional(),
  created_before: isoDateOrDateTime.optional(),
});

export type PageListQuery = z.output<typeof pageListSchema>;
