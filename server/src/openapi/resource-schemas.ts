import { z } from "zod";

/** Response shapes, documented with the same zod used for requests. */
const timestamp = z.iso.datetime({ offset: false }).describe("ISO 8601 UTC with milliseconds");

export const productImageSchema = z.object({
  id: z.uuid(),
  url: z.url(),
  media_type: z.string(),
  display_order: z.number().int(),
  created_at: timestamp,
});

const productBase = z.object({
  id: z.uuid(),
  title: z.string(),
  description: z.string().nullable(),
  price: z.number(),
  original_price: z.number().nullable(),
  delivery_price: z.number().nullable(),
  preview_image_url: z.url(),
  product_type: z.enum(["physical", "service"]),
  created_at: timestamp,
  updated_at: timestamp,
});

export const paginationSchema = z.object({ next_cursor: z.string().nullable(), has_more: z.boolean() });

export const productResponse = z.object({ data: productBase.extend({ images: z.array(productImageSchema) }) });
export const productListResponse = z.object({ data: z.array(productBase), pagination: paginationSchema });

export const errorResponse = z.object({
  error: z.object({
    code: z.string().describe("Lower snake_case error code"),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    request_id: z.string(),
  }),
});

export { timestamp as timestampSchema };
