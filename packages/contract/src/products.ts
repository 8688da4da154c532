import { z } from "zod";
import { dataOf, listOf, timestampSchema } from "./common.js";

/** A product image (spec: Product image). */
export const productImageSchema = z.object({
  id: z.uuid(),
  url: z.url(),
  media_type: z.string(),
  display_order: z.number().int(),
  created_at: timestampSchema,
});

/** A product as list items show it: without `images`. */
export const productSummarySchema = z.object({
  id: z.uuid(),
  title: z.string(),
  description: z.string().nullable(),
  price: z.number(),
  original_price: z.number().nullable(),
  delivery_price: z.number().nullable(),
  preview_image_url: z.url().describe("The first image by display order, else a generated placeholder"),
  product_type: z.enum(["physical", "service"]),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});

/** A product as create, get and update return it: with its images in display order. */
export const productSchema = productSummarySchema.extend({ images: z.array(productImageSchema) });

export const productResponse = dataOf(productSchema);
export const productListResponse = listOf(productSummarySchema);

export type ProductImage = z.infer<typeof productImageSchema>;
export type ProductSummary = z.infer<typeof productSummarySchema>;
export type Product = z.infer<typeof productSchema>;
